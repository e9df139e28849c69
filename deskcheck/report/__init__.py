"""deskcheck.report"""
