"""``fixtures/proj`` is a project of its own (tests that build stand-ins every ad-hoc way,
one with a syntax error on purpose): deskcheck's suite reads and runs it, never collects it."""

collect_ignore_glob = ["fixtures/*"]
