"""deskcheck.drift_guard"""
