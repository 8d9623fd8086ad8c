"""The games built on the generic engine: Kuhn poker (the textbook check), the card-play
game of a vira, double dummy, the mão de onze and its match payoffs."""
