"""deskcheck.suites"""
