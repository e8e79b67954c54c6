"""Game-tree search: one engine (minimax, alpha-beta, depth-limited, iterative deepening) that
the AIs, `ttt-db search`, traces and the page all run; its counts, its traces and their checker."""
