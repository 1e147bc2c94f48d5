"""Checks `gradtutor dev check` makes of a lesson's notebooks as text: answer names kept to the answers, prose length."""
