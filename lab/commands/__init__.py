"""The ``lab`` sub-commands, one module each (see ``lab.cli.COMMANDS``)."""
