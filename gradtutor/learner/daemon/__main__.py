from gradtutor.learner.daemon.server import main

main()
