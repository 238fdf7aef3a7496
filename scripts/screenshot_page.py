"""Screenshot of the web page after one completed council run: the final answer first, the stages folded.

Everything runs on this machine: a fake upstream (council.testing.fake_llm)
plays three members who answer in Markdown, `council serve`'s app runs on a
loopback port with a throwaway database, and the system Chromium, driven by
Playwright, asks one question and waits for the run to finish. The full page
is saved as a PNG (by default artifacts/page-final-answer-first.png).

    .venv/bin/python scripts/screenshot_page.py [--out PATH] [--width 1280] [--theme light|dark]

The test suite never writes into the repository; this script is how the
picture under artifacts/ is made.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from playwright.async_api import async_playwright

from council import Council
from council.config import CouncilConfig
from council.server.app import create_app
from council.server.listen import start_site
from council.storage.store import Store
from council.testing.fake_llm import FakeLLMServer, RecordedRequest, Step
from council.testing.scripted import council_member, is_chairman_prompt, request_messages

ROOT = Path(__file__).resolve().parent.parent
Theme = Literal["light", "dark"]
QUESTION = "Why is the sky blue, and why are sunsets red?"

# Each member's answer and the score every reviewer gives it (so the ranking comes out alpha, beta, gamma).
ANSWERS = {
    "alpha": (9, "**Rayleigh scattering.** Air molecules scatter short wavelengths far more than long ones "
                 "(about 1/λ⁴), so blue light reaches your eye from every part of the sky.\n\n"
                 "At sunset the light crosses much more air, the blue is scattered away, and red is left."),
    "beta": (7, "Blue light is scattered more by the atmosphere:\n\n- violet is scattered even more, but\n"
                "  - the sun emits less of it\n  - our eyes are less sensitive to it\n- at sunset the path is longer"),
    "gamma": (5, "The sky reflects the ocean, which is why it looks blue."),
}
FINAL = """\
### The short answer

Sunlight is scattered by air molecules, and **short wavelengths scatter much more** than long ones
(*Rayleigh scattering*, intensity ∝ 1/λ⁴). Blue light therefore arrives from all over the sky.

| Colour | Wavelength (nm) | Scattered vs. red |
|:-------|:---------------:|------------------:|
| Violet | 400 | 9.4× |
| Blue | 450 | 5.8× |
| Red | 700 | 1.0× |

1. **Why not violet?**
   - the sun emits less violet than blue
   - our eyes are less sensitive to it
2. **Why red sunsets?** Near the horizon sunlight crosses ~40× more air, so the blue is scattered out
   before it reaches you.

```python
def relative_scattering(nm, reference=700):
    return (reference / nm) ** 4
```

> The ocean does *not* colour the sky: gamma's answer confuses cause and effect.

More: [Rayleigh scattering](https://en.wikipedia.org/wiki/Rayleigh_scattering).
"""


def judge(text: str) -> int:
    """A reviewer's score for an answer: the score it was given above (the answer text is what reviewers see)."""
    return next((score for score, answer in ANSWERS.values() if answer.strip() == text.strip()), 5)


def member(name: str) -> Callable[[RecordedRequest], str]:
    plain = council_member(ANSWERS[name][1], judge)

    def reply(request: RecordedRequest) -> str:
        # The chairman (alpha) writes the synthesis; every other request is answered as a member.
        return FINAL if is_chairman_prompt(request_messages(request)) else plain(request)

    return reply


def find_chromium() -> str:
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and Path(candidate).is_file():
            return candidate
    sys.exit("no Chromium found: apt-get install chromium")


async def take(out: Path, width: int, theme: Theme) -> None:
    with tempfile.TemporaryDirectory() as folder:
        async with FakeLLMServer() as fake:
            for name in ANSWERS:
                fake.script(f"model-{name}", Step(reply=member(name)))
            config = CouncilConfig.model_validate({
                "members": [{"name": name, "provider": "openai", "model": f"model-{name}",
                             "base_url": fake.base_url("openai")} for name in ANSWERS],
                "chairman": "alpha",
                "storage": {"path": str(Path(folder) / "council.db")},
            })
            store = Store(Path(folder) / "council.db")
            council = Council(config, store=store, environ={})
            runner, site = await start_site(create_app(config, environ={}, council=council), config.server,
                                            "127.0.0.1", 0)
            try:
                await shoot(f"http://127.0.0.1:{site.port}/", out, width, theme)
            finally:
                await runner.cleanup()
                store.close()


async def shoot(url: str, out: Path, width: int, theme: Theme) -> None:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=find_chromium(), headless=True,
            args=["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
        try:
            page = await browser.new_page(viewport={"width": width, "height": 900}, color_scheme=theme)
            await page.goto(url)
            await page.wait_for_selector("body[data-ready=true]", state="attached")
            await page.fill("#question", QUESTION)
            await page.press("#question", "Enter")
            await page.locator(".turn .run.finished").wait_for(timeout=30_000)
            await page.locator("#question").blur()  # no focus ring in the picture
            # The top bar and the question box are sticky: grow the viewport to the whole page so they sit
            # where a reader sees them, rather than over the middle of a full-page capture.
            height = await page.evaluate("document.documentElement.scrollHeight")
            await page.set_viewport_size({"width": width, "height": max(height, 900)})
            out.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(out))
        finally:
            await browser.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "page-final-answer-first.png")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--theme", choices=["light", "dark"], default="light")
    args = parser.parse_args(argv)
    asyncio.run(take(args.out, args.width, args.theme))
    print(args.out)


if __name__ == "__main__":
    main()
