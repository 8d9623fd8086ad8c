"""Play a match in the terminal against a bot."""


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    raise ValueError("lab play is not built yet")
