"""The game itself: an m,n,k game's geometry (`Game`: lines, symmetries, cell names, keys), its
rules on plain strings, the validating `Board` type with its notation, and symmetry."""
