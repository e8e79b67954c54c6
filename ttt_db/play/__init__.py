"""Playing games: matches between AIs, and a game in progress with its first mistake."""
