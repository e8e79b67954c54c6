"""The AIs: the protocol (a board in, every move it might play out), calling one safely, the
built-in ones (rule-based, database lookup, searches), and loading any of them by name."""
