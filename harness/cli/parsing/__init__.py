"""How the command line is parsed and how a command fails: the parser, exit codes and the options commands share.
"""
