"""Debian's Chromium under playwright, fenced to one origin: shared by the Lab and hub browser tests."""
from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"  # Debian's, as the docs tests use it; never a downloaded one
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def fenced_page(playwright, origin: str, refused, viewport: dict):
    """(browser, page): every request outside `origin` is refused and its URL handed to `refused(url)`."""

    def route(r):
        if r.request.url.startswith(origin):
            r.continue_()
        else:
            refused(r.request.url)
            r.abort()

    browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    page = browser.new_page(viewport=viewport)
    page.route("**/*", route)
    return browser, page
