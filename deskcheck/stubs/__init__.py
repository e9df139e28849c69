"""deskcheck.stubs"""
