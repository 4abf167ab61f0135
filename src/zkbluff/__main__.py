from zkbluff.cli_start import main

main()
