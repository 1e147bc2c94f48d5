from gradtutor.daemon.server import main

main()
