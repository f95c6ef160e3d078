"""The one exception type for bad user input.

Anything the user can fix (a parameter, a file, a field) raises ``InputError`` with a one-line
message that names the input, the field and what would be valid. The command line prints it and
exits with code 2; every other exception is an internal error (exit code 1).
"""


class InputError(ValueError):
    """Bad user input; ``str(err)`` is the one-line message shown to the user."""
