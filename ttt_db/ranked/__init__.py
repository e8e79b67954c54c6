"""The ranked core: every position of a game as a slot of its level, and the code byte it holds.

- `slots`: how one board becomes a slot (colex ranks), its class's representative, level sizes;
- `codes`: the code byte (value and remoteness for the side to move) and the retrograde rule on it;
- `kernel`: every per-slot loop over whole levels, one source run interpreted or compiled
  (`backend`), over a game's `tables`;
- `step`: the level step (a level solved from the one below, over canonical occupied sets);
- `layout`: a level's canonical codes in the stored numbering, chunk by chunk, and back;
- `walk`: the one level walker, forward and backward, every level held to its children.
"""
