"""deskcheck.harness"""
