"""The compact full-game engine: the hand with the truco ladder laid out as card nodes x
betting states (game, tree, kernels, batched traversals, the solver with its checkpoints),
and its solved strategies as policies (policy, their compact stored form, walking a line
of play along them)."""
