"""What must hold before held-out is run or anything is published.

The freeze (refused for an unpinned fixture, a failed or missing calibration, a changed system), and the
modes of a split as the freeze states them.
"""
