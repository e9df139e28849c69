"""A project's own test utility that reads CUDA_VISIBLE_DEVICES at import, as SGLang's
``sglang/test/test_utils.py`` does: with the variable set to "" it raises IndexError."""

import os

PORT = 20000 + int(os.environ.get("CUDA_VISIBLE_DEVICES", "0")[0]) * 1000
