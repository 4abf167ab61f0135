from zkbluff.cli_start import run

run()
