"""gradtutor.evidence: the recorder and what its recordings say."""
