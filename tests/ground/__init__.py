"""The ground: the shared vocabulary (protocol) and the message catalogues."""
