"""Reference tensor-parallel scheduler (deskcheck example target)."""
