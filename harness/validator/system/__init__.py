"""The system under test as the receipt names it.

The built-in store checked part by part, a system of its own re-hashed (its source and the modules it
loaded), and a lane only its live engine can answer asked again.
"""
