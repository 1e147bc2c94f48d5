"""The class report: what the class got wrong, each student's causes and the lessons that teach them, as CSV and HTML."""
