"""The Catalog tab in a real browser (issue 23): the roadmap at two widths and in two
languages, a course card on a click, and the chat switching to the course's workspace.

Uses the app and browser of tests/browser_app.py (one app per module, real model, sample
courses and the sample catalog).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser_app import *  # noqa: F403 - the app, the browser and their fixtures
from tests.browser_app import CHROMIUM, open_app, screenshot, select_course
from tests.browser_support import ask, citations, settle, sidebar

pytestmark = pytest.mark.slow

if not Path(CHROMIUM).exists():  # pragma: no cover - `make test` installs it first
    pytest.skip(f"{CHROMIUM} is missing (run scripts/ensure_chromium.sh)", allow_module_level=True)


WORDS = {
    "en-US": {
        "tab": "Catalog",
        "study": "Study",
        "year1": "Year 1",
        "credits": "credits",
        "selected": "Selected for the chat",
        "none": "no workspace",
        "program": "BSc Data Science",
    },
    "zh-CN": {
        "tab": "课程目录",
        "study": "学习",
        "year1": "第一学年",
        "credits": "学分",
        "selected": "已选为聊天课程",
        "none": "没有学习空间",
        "program": "数据科学理学学士",
    },
}


def _open_catalog(page, words):
    page.get_by_role("tab", name=words["tab"]).click()
    page.wait_for_function(
        "(text) => (document.querySelector('#cr-roadmap')?.innerText || '').includes(text)", arg=words["year1"]
    )


def _choose_program(page, name):
    page.click("#cr-program input")
    page.get_by_role("option", name=name).click()
    # The roadmap drawn for this program (another program's may list DS2010 too).
    page.wait_for_function(
        "(name) => (document.querySelector('#cr-roadmap .cr-road-head')?.innerText || '').includes(name)", arg=name
    )
    page.wait_for_function("() => !!document.querySelector('#cr-roadmap .cr-road-course[data-code=\"DS2010\"]')")
    settle(page)


def _fits(page) -> bool:
    return page.evaluate(
        "() => { const r = document.querySelector('#cr-roadmap');"
        " return document.documentElement.scrollWidth <= window.innerWidth + 1 && r.scrollWidth <= r.clientWidth + 1; }"
    )


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
@pytest.mark.parametrize("width", [1366, 420])
def test_the_roadmap_lists_a_program_and_a_click_selects_the_course_for_the_chat(browser, server, width, locale):
    words = WORDS[locale]
    context, page = open_app(browser, server, width=width, height=900, locale=locale)
    try:
        _open_catalog(page, words)
        _choose_program(page, words["program"])
        roadmap = page.locator("#cr-roadmap")
        years = [h.inner_text() for h in roadmap.locator(".cr-road-year h3").all()]
        assert len(years) == 4 and years[0].startswith(words["year1"][:2])
        ds2010 = roadmap.locator('.cr-road-course[data-code="DS2010"]')
        text = ds2010.inner_text()
        assert "DS2010" in text and words["credits"] in text and "MAT2040" in text
        assert ds2010.locator(".cr-road-sections").count() == 1  # this term's sections (or "not offered")
        assert _fits(page), "the roadmap is wider than the screen"
        ds2010.click()
        page.wait_for_function(
            "(text) => (document.querySelector('#cr-catalog-card')?.innerText || '').includes(text)",
            arg=words["selected"],
        )
        card = page.locator("#cr-catalog-card").inner_text()
        assert "DS2010" in card and "理学楼 305" in card
        page.wait_for_function("() => (document.querySelector('#cr-course input')?.value || '').includes('DS2010')")
        # A course with no workspace opens its card and leaves the chat's course alone.
        roadmap.locator('.cr-road-course[data-code="MAT1001"]').click()
        page.wait_for_function(
            "(text) => (document.querySelector('#cr-catalog-card')?.innerText || '').includes(text)", arg=words["none"]
        )
        assert "DS2010" in page.locator("#cr-course input").input_value()
        assert _fits(page)
        screenshot(page, f"catalog_{width}_{locale[:2]}.png")
    finally:
        context.close()


def test_a_catalog_answer_cites_its_row_in_the_source_list(browser, server):
    context, page = open_app(browser, server)
    try:
        answer = ask(page, "How many credits is DS2010?")
        assert "3 credits" in answer.inner_text()
        cites = citations(answer)
        assert cites and cites[0]["file"].endswith("courses.csv") and "DS2010" in cites[0]["locator"]
        assert cites[0]["href"] is None  # a catalog row is no course file to open
    finally:
        context.close()


@pytest.mark.parametrize(
    "width, locale, course, question, once, never",
    [
        (1366, "en-US", None, "How many credits is CSC3100?", "The course materials say:", ["From the materials:"]),
        (420, "zh-CN", "DS2010 数据科学导论", "DS2010 有几个学分？", "课程资料中的说法", ["根据资料", "不一致"]),
        (360, "zh-CN", "DS2010 数据科学导论", "DS2010 的先修课程是什么？", "课程资料中的说法", ["根据资料", "不一致"]),
    ],
)
def test_a_catalog_answer_says_each_source_once_and_a_program_rule_is_no_disagreement(
    browser, server, width, locale, course, question, once, never
):
    """Issue 43, item 8: "The course materials say: From the materials: 3"; and the ECE
    students' 2 credits (a program's rule), or a prerequisite named by its title, were
    flagged as the materials disagreeing with the catalog."""
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        if course:
            with sidebar(page):
                select_course(page, course)
        answer = ask(page, question)
        said = answer.locator(".cr-md").inner_text()
        assert citations(answer)[0]["file"].startswith("catalog/"), citations(answer)
        if once:
            assert said.count(once) == 1, said
        for words in never:
            assert words not in said, said
    finally:
        context.close()


def _in_view(page, selector: str) -> bool:
    """The element's box lies inside the viewport (sub-pixel slack)."""
    return page.evaluate(
        "(sel) => { const r = document.querySelector(sel)?.getBoundingClientRect(); if (!r || !r.height) return false;"
        " const w = document.documentElement.clientWidth, h = window.innerHeight;"
        " return r.left >= -0.5 && r.top >= -0.5 && r.right <= w + 0.5 && r.bottom <= h + 0.5; }",
        selector,
    )


def _card_of(page, code: str) -> None:
    page.wait_for_function(
        "(code) => document.querySelector('#cr-catalog-card .cr-catalog-card')?.dataset.code === code", arg=code
    )
    settle(page)


@pytest.mark.parametrize("width", [1366, 420])
def test_a_course_card_opens_where_the_learner_is_looking_and_closes(browser, server, width):
    """Issue 43, item 1: a course of the last year, clicked, shows its card in view and
    focused (at 1366 px the card once opened top-right, at 420 px below the roadmap, both out
    of sight); its close button hands the focus back to the course clicked."""
    words = WORDS["en-US"]
    context, page = open_app(browser, server, width=width, height=800)
    try:
        _open_catalog(page, words)
        _choose_program(page, words["program"])
        code = page.locator("#cr-roadmap .cr-road-year").last.locator(".cr-road-course").last.get_attribute("data-code")
        course = page.locator(f'#cr-roadmap .cr-road-course[data-code="{code}"]')
        course.click()
        _card_of(page, code)
        assert _in_view(page, "#cr-catalog-card .cr-catalog-card h3"), "the card's heading is out of view"
        assert _in_view(page, "#cr-catalog-card .cr-catalog-close"), "the card's close button is out of view"
        assert page.evaluate("document.activeElement?.closest('#cr-catalog-card') !== null"), "the card is not focused"

        page.click("#cr-catalog-card .cr-catalog-close")
        page.wait_for_function("() => !document.querySelector('#cr-catalog-card .cr-catalog-card')?.checkVisibility()")
        settle(page)
        assert page.evaluate("document.activeElement?.dataset?.code") == code, "the focus did not go back"
        assert _in_view(page, f'#cr-roadmap .cr-road-course[data-code="{code}"]')
        course.click()  # the same course again opens the card again
        _card_of(page, code)
        assert _in_view(page, "#cr-catalog-card .cr-catalog-card h3")
    finally:
        context.close()


@pytest.mark.parametrize(("width", "locale"), [(420, "en-US"), (360, "zh-CN")])
def test_the_study_tab_names_the_course_a_catalog_card_selected(browser, server, width, locale):
    """Issue 43, item 2: on a phone the Study tab's course line followed the picker only after F5."""
    words = WORDS[locale]
    context, page = open_app(browser, server, width=width, height=800, locale=locale)
    try:
        assert "CSC3100" in page.inner_text("#cr-course-chip")
        _open_catalog(page, words)
        _choose_program(page, words["program"])
        page.locator('#cr-roadmap .cr-road-course[data-code="DS2010"]').click()
        _card_of(page, "DS2010")
        page.wait_for_function("() => (document.querySelector('#cr-course input')?.value || '').includes('DS2010')")
        page.get_by_role("tab", name=words["study"]).click()
        page.wait_for_selector("#cr-course-chip", state="visible")
        settle(page)
        chip = page.inner_text("#cr-course-chip")
        assert "DS2010" in chip and "CSC3100" not in chip, chip
    finally:
        context.close()
