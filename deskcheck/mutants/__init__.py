"""deskcheck.mutants"""
