"""A rank task whose module imports the project's test utility (a spawned rank imports it)."""

import os


def port_and_visible() -> tuple[int, str | None]:
    from sglang_like_utils import PORT

    return PORT, os.environ.get("CUDA_VISIBLE_DEVICES")
