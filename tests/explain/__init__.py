"""gradtutor.explain: `gradtutor explain` for anyone's script; its corpus is in corpus/."""
