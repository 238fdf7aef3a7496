"""Images on the page: attached to a question, sent to the members; refused, naming the file, when not an image."""

from __future__ import annotations

import base64

from playwright.async_api import expect

from tests.web.conftest import LOOP, finished_turn, open_page

pytestmark = LOOP

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
                       "kgAAAABJRU5ErkJggg==")


async def test_an_attached_image_reaches_every_member(web_server, browser, tmp_path):
    picture = tmp_path / "pixel.png"
    picture.write_bytes(PNG)
    page = await open_page(browser, web_server.url + "/")
    await page.set_input_files("#attach", str(picture))
    await expect(page.locator("[data-testid=attachment]")).to_have_text("pixel.png✕")
    await page.fill("#question", "What is in this picture?")
    await page.press("#question", "Enter")
    turn = await finished_turn(page)
    await expect(turn.locator("[data-testid=question-images] img")).to_have_count(1)
    await expect(page.locator("[data-testid=attachment]")).to_have_count(0)
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    for name in ("alpha", "beta", "gamma"):
        first = web_server.fake.requests_for(f"model-{name}")[0]
        assert first.body["messages"][-1]["content"] == [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image_url", "image_url": {"url": data_url}}]
        later = web_server.fake.requests_for(f"model-{name}")[1:]
        assert later and all("image_url" not in str(r.body) for r in later), "reviews and synthesis are text"


async def test_a_file_that_is_not_an_image_is_refused_by_name(web_server, browser, tmp_path):
    drawing = tmp_path / "drawing.svg"
    drawing.write_text('<svg xmlns="http://www.w3.org/2000/svg"/>')
    page = await open_page(browser, web_server.url + "/")
    await page.set_input_files("#attach", str(drawing))
    await expect(page.locator("#notice")).to_contain_text("drawing.svg is not an image the council can take")
    await expect(page.locator("[data-testid=attachment]")).to_have_count(0)
    assert web_server.fake.requests == []


async def test_a_removed_attachment_is_not_sent(web_server, browser, tmp_path):
    picture = tmp_path / "pixel.png"
    picture.write_bytes(PNG)
    page = await open_page(browser, web_server.url + "/")
    await page.set_input_files("#attach", str(picture))
    await page.get_by_role("button", name="Remove pixel.png").click()
    await expect(page.locator("[data-testid=attachment]")).to_have_count(0)
    await page.fill("#question", "Just text")
    await page.press("#question", "Enter")
    await finished_turn(page)
    assert web_server.fake.requests_for("model-alpha")[0].body["messages"][-1]["content"] == "Just text"
