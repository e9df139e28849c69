"""Tests that close gaps mutmut found in deskcheck's pure modules (see bench/results/selfproof.md)."""
