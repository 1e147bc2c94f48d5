"""Running learner code apart from the checker: a fork server, one locked-down child per job.

    client.py    the parent's side: starts the server, hands it jobs, enforces time limits
    results.py   reads back what a child left (nonce-checked JSON, numeric .npz), and why it stopped
    server.py    `python -m gradtutor.isolation.server`: imports TensorFlow once, forks a child per job
    child.py     what a child does: references, or load the learner's cells and call its functions
    describe.py  a returned value or a raised error as a plain description
    policy.py    what learner code may not do: one table of rules, and `enforce`
    landlock.py  the kernel's layer of the policy (Linux Landlock), and die_with_parent
    ipc.py       JSON lines with deadlines, for every pipe and socket gradtutor talks over
    network.py   the network layer of the policy (no sockets out of the sandbox)
    input_copies.py  copies of a call's inputs, and whether the call changed them

What a call did (its run facts) is recorded by gradtutor.evidence (run_facts.py), the same
package `gradtutor explain` records with; the child only wraps the learner's call in it.

Nothing here is imported by learner code: the policy forbids it.
"""
