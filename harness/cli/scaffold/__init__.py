"""`python -m harness new-system`: a system of your own, written as a skeleton that runs and tests as typed.
"""
