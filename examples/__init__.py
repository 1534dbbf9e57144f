"""Example plans for `benchledger collect`: package data of the wheel as `benchledger.examples`
(setup.py maps this folder there), which `benchledger init` copies into a new project's plans/."""
