"""Shot search over candidate shots: greedy, probabilistic (expectimax-like) and Monte-Carlo
(Smith 2006, Section 4). Each module exposes ``search(ctx, state, game, candidates, deadline)``
returning a ``Scored`` best candidate."""
