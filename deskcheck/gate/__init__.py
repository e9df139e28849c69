"""deskcheck.gate"""
