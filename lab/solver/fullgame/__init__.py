"""The compact full-game engine: the hand with the truco ladder laid out as card nodes x
betting states (game, tree, kernels, batched traversals, the solver with its checkpoints),
and the compact stored form of its solved strategies. Reading them is
:mod:`lab.policy`'s (:mod:`lab.policy.full`)."""
