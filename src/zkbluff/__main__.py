from zkbluff.cli import main

main()
