"""What the product says about errors and warnings, in English and Chinese, by code.

Domain errors (`courserag.errors`) and answer warnings (`Notice`) carry a code and its
parameters instead of a finished sentence, so that each layer can say them in its own
language: the CLI and the JSON contract in English, the UI in the learner's language.
A code missing in Chinese falls back to English; an unknown code is a bug (KeyError).

Interface words (labels, buttons) are not here: they live with the UI (courserag/i18n/ui_texts.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from courserag.i18n.catalog_messages import CATALOG_MESSAGES

MESSAGES: dict[str, dict[str, str]] = {
    # -- general ------------------------------------------------------------------------
    "plain": {"en": "{text}", "zh": "{text}"},
    "config": {"en": "{detail}", "zh": "配置错误：{detail}"},
    "unknown_course": {
        "en": "unknown course id {course_id!r} (known courses: {known})",
        "zh": "未知的课程编号 {course_id!r}（现有课程：{known}）",
    },
    "no_courses": {"en": "none configured", "zh": "无"},
    # -- questions ----------------------------------------------------------------------
    "empty_question": {"en": "please type a question", "zh": "请先输入问题"},
    "question_too_long": {
        "en": "your question is {chars} characters long; please keep it under {limit}",
        "zh": "你的问题有 {chars} 个字符，请控制在 {limit} 个字符以内",
    },
    "bad_scope": {
        "en": "scope must be one of both, course, notes, but got {scope!r}",
        "zh": "检索范围必须是 both、course 或 notes 之一，而不是 {scope!r}",
    },
    # -- uploads and the session --------------------------------------------------------
    "ingest_failed": {"en": "{name}: {reason}", "zh": "{name}：{reason}"},
    "no_text_extracted": {"en": "no text could be extracted from this file", "zh": "无法从该文件中提取任何文字"},
    "file_over_limit": {
        "en": "the file is {size}, over the upload limit of {limit_mb} MB",
        "zh": "文件大小为 {size}，超过了 {limit_mb} MB 的上传上限",
    },
    "too_many_chunks": {
        "en": "it yields {chunks} passages; the limit is {limit}",
        "zh": "该文件会产生 {chunks} 个段落，超过了 {limit} 个的上限",
    },
    "file_unreadable": {
        "en": "the file could not be read ({detail})",
        "zh": "无法读取该文件（{detail}）",
    },
    "session_bytes": {
        "en": "{name}: your uploads would exceed {limit_mb} MB for this session; remove a file first",
        "zh": "{name}：本次会话的上传总量将超过 {limit_mb} MB，请先删除一个文件",
    },
    "session_chunks": {
        "en": "{name}: this session already holds {held} passages; adding {adding} more would pass the limit of {limit}",
        "zh": "{name}：本次会话已有 {held} 个段落，再添加 {adding} 个将超过 {limit} 个的上限",
    },
    "upload_ok": {
        "en": "✓ {name}: {units} {unit} read, {chunks} {passages} added",
        "zh": "✓ {name}：读取 {units} {unit}，新增 {chunks} 个段落",
    },
    "upload_ok_warn": {"en": "{line} ({warnings})", "zh": "{line}（{warnings}）"},
    "upload_duplicate": {
        "en": "✓ {name}: already uploaded, nothing new to add",
        "zh": "✓ {name}：之前已上传过，没有新内容",
    },
    "upload_failed": {"en": "✗ {error}", "zh": "✗ {error}"},
    # Budgets of a session and of the server (session_pool.py, ui/server.py).
    "session_parse_budget": {
        "en": "{name}: this session has used its reading budget ({files} files or {seconds:g} s of reading); "
        "open the assistant in a new tab to upload more",
        "zh": "{name}：本次会话的读取额度已用完（{files} 个文件或 {seconds:g} 秒的读取时间）；请在新标签页中打开助手再上传",
    },
    "upload_too_many_files": {
        "en": "{count} files were given at once; only the first {limit} were read",
        "zh": "一次提交了 {count} 个文件，只读取了前 {limit} 个",
    },
    "server_sessions_full": {
        "en": "the assistant is holding uploads for as many learners as it can ({limit}); try again in a few minutes",
        "zh": "助手目前保存上传文件的学习者已达上限（{limit} 人）；请几分钟后再试",
    },
    "server_memory_full": {
        "en": "{name}: the assistant's memory for uploaded notes is full right now; try again in a few minutes",
        "zh": "{name}：助手用于保存上传笔记的内存已满；请几分钟后再试",
    },
    "instructor_throttled": {
        "en": "🔒 Too many wrong tokens from your address; try again in {seconds} s.",
        "zh": "🔒 你的地址输入错误口令的次数过多；请 {seconds} 秒后再试。",
    },

    "passage": {"en": "passage", "zh": "段落"},
    "passages": {"en": "passages", "zh": "段落"},
    # Units a file is read in ("3 pages read"): singular and plural.
    "unit_page": {"en": "page|pages", "zh": "页|页"},
    "unit_slide": {"en": "slide|slides", "zh": "张幻灯片|张幻灯片"},
    "unit_cell": {"en": "cell|cells", "zh": "个单元格|个单元格"},
    "unit_line": {"en": "line|lines", "zh": "行|行"},
    "unit_paragraph": {"en": "paragraph|paragraphs", "zh": "段|段"},
    "unit_section": {"en": "section|sections", "zh": "节|节"},
    # -- parsers (courserag/ingest/parsers) ----------------------------------------------------
    # Refusals before parsing (guard.py).
    "supported_types": {
        "en": "upload a PDF, Word (.docx), PowerPoint (.pptx), Markdown, text (.txt), Python (.py) "
        "or Jupyter notebook (.ipynb) file",
        "zh": "请上传 PDF、Word（.docx）、PowerPoint（.pptx）、Markdown、纯文本（.txt）、Python（.py）"
        "或 Jupyter 笔记本（.ipynb）文件",
    },
    "no_extension": {
        "en": "the file has no extension, so its type is unknown; {supported}",
        "zh": "该文件没有扩展名，无法判断文件类型；{supported}",
    },
    "old_office_format": {
        "en": "old-format {ext} files are not supported; open it and save it as {ext}x, then upload that",
        "zh": "不支持旧格式的 {ext} 文件；请打开它并另存为 {ext}x 格式，然后上传新文件",
    },
    "unsupported_type": {"en": "{ext} files are not supported; {supported}", "zh": "不支持 {ext} 文件；{supported}"},
    "file_empty": {"en": "the file is empty (0 bytes)", "zh": "文件是空的（0 字节）"},
    "file_open_failed": {"en": "the file could not be opened", "zh": "无法打开该文件"},
    "file_read_failed": {"en": "the file could not be read", "zh": "无法读取该文件"},
    "not_valid_kind": {
        "en": "the file is named {ext} but is not a valid {kind}; it may be damaged",
        "zh": "文件扩展名是 {ext}，但它不是有效的{kind}，可能已经损坏",
    },
    "type_mismatch": {
        "en": "the file is named {ext} but looks like {looks}, not a {expected}",
        "zh": "文件扩展名是 {ext}，但内容看起来是{looks}，而不是{expected}",
    },
    "type_mismatch_rename": {
        "en": "the file is named {ext} but looks like {looks}, not a {expected}; rename it to .{doc_type} and upload it again",
        "zh": "文件扩展名是 {ext}，但内容看起来是{looks}，而不是{expected}；请把它重命名为 .{doc_type} 后重新上传",
    },
    # What a file should be ("not a valid {kind}", "not a {expected}").
    "kind_pdf": {"en": "PDF", "zh": "PDF文件"},
    "kind_docx": {"en": "Word document (.docx)", "zh": "Word文档（.docx）"},
    "kind_pptx": {"en": "PowerPoint presentation (.pptx)", "zh": "PowerPoint演示文稿（.pptx）"},
    "kind_text": {"en": "text file", "zh": "文本文件"},
    # What a file's leading bytes say it is ("looks like {looks}").
    "looks_pdf": {"en": "a PDF", "zh": "一个PDF文件"},
    "looks_docx": {"en": "a Word document (.docx)", "zh": "一个Word文档（.docx）"},
    "looks_pptx": {"en": "a PowerPoint presentation (.pptx)", "zh": "一个PowerPoint演示文稿（.pptx）"},
    "looks_xlsx": {"en": "an Excel workbook (.xlsx)", "zh": "一个Excel工作簿（.xlsx）"},
    "looks_opendocument": {"en": "an OpenDocument file (.odt, .odp or .ods)", "zh": "一个OpenDocument文件（.odt、.odp或.ods）"},
    "looks_zip": {"en": "a zip archive", "zh": "一个zip压缩包"},
    "looks_png": {"en": "a PNG image", "zh": "一张PNG图片"},
    "looks_jpeg": {"en": "a JPEG image", "zh": "一张JPEG图片"},
    "looks_gif": {"en": "a GIF image", "zh": "一张GIF图片"},
    "looks_tiff": {"en": "a TIFF image", "zh": "一张TIFF图片"},
    "looks_old_office": {"en": "an old-format Office file (.doc, .ppt or .xls)", "zh": "一个旧版Office文件（.doc、.ppt或.xls）"},
    "looks_gzip": {"en": "a gzip archive", "zh": "一个gzip压缩包"},
    "looks_rar": {"en": "a RAR archive", "zh": "一个RAR压缩包"},
    "looks_7z": {"en": "a 7-Zip archive", "zh": "一个7-Zip压缩包"},
    "looks_program": {"en": "a program", "zh": "一个可执行程序"},
    "looks_windows_program": {"en": "a Windows program", "zh": "一个Windows程序"},
    "looks_rtf": {"en": "an RTF document", "zh": "一个RTF文档"},
    "looks_mp3": {"en": "an MP3 audio file", "zh": "一个MP3音频文件"},
    "looks_audio": {"en": "an audio file", "zh": "一个音频文件"},
    "looks_media": {"en": "a media file (audio, video or image)", "zh": "一个媒体文件（音频、视频或图片）"},
    "looks_mp4": {"en": "a video or audio file (MP4)", "zh": "一个视频或音频文件（MP4）"},
    "file_locked": {
        "en": "this file is password-protected; remove the password and upload it again",
        "zh": "该文件设有密码保护；请取消密码后重新上传",
    },
    "zip_damaged": {
        "en": "the file is damaged (its zip container cannot be opened); it may be incomplete",
        "zh": "文件已损坏（无法打开其 zip 容器），可能不完整",
    },
    "zip_too_many_entries": {
        "en": "this file holds more than {limit:,} archive entries, over the limit",
        "zh": "该文件包含超过 {limit:,} 个压缩条目，超出了上限",
    },
    "zip_bomb": {
        "en": "this file would unpack to {unpacked_mb:,.0f} MB, over the limit of {limit_mb:g} MB (it may be a zip bomb)",
        "zh": "该文件解压后将达到 {unpacked_mb:,.0f} MB，超过了 {limit_mb:g} MB 的上限（可能是压缩炸弹）",
    },
    "xml_declarations": {
        "en": "this file contains XML declarations (DOCTYPE/ENTITY) that Word and PowerPoint never write; "
        "it was rejected as unsafe",
        "zh": "该文件含有 Word 和 PowerPoint 从不写入的 XML 声明（DOCTYPE/ENTITY），出于安全考虑已被拒绝",
    },
    "file_damaged": {
        "en": "the file is damaged or not in the format its name says, and could not be read ({detail})",
        "zh": "文件已损坏，或者其格式与文件名不符，无法读取（{detail}）",
    },
    # Text files (text.py); the warnings say how the encoding was guessed.
    "not_text": {
        "en": "this does not look like a text file (it holds binary data or text in an encoding we cannot read); "
        "save it as UTF-8 text and upload it again",
        "zh": "这看起来不是文本文件（其中含有二进制数据，或使用了无法识别的编码）；请另存为 UTF-8 文本后重新上传",
    },
    "no_text": {"en": "the file contains no text", "zh": "该文件不包含任何文字"},
    "bytes_replaced": {
        "en": "a few bytes were not valid UTF-8 and were replaced",
        "zh": "有少量字节不是有效的 UTF-8 编码，已被替换",
    },
    "read_as_windows_1252": {
        "en": "the file is not UTF-8; it was read as Windows-1252",
        "zh": "该文件不是 UTF-8 编码，已按 Windows-1252 编码读取",
    },
    "read_as_guessed": {
        "en": "the file is not UTF-8; it was read as {encoding} (check that the text looks right)",
        "zh": "该文件不是 UTF-8 编码，已按 {encoding} 编码读取（请检查文字显示是否正确）",
    },
    "text_truncated": {
        "en": "the text was cut at {limit:,} characters; the rest of the file was not read",
        "zh": "文字在第 {limit:,} 个字符处被截断，文件的其余部分没有读取",
    },
    # PDF (pdf.py).
    "pdf_damaged": {
        "en": "this PDF is damaged or incomplete (it may have been cut off while downloading); "
        "open it on your computer, save a new copy and upload that",
        "zh": "该 PDF 已损坏或不完整（可能下载时被中断）；请在电脑上打开它，另存一份新副本后上传",
    },
    "pdf_encryption_unsupported": {
        "en": "this PDF is encrypted with a method we cannot open; save an unprotected copy and upload that",
        "zh": "该 PDF 使用了无法打开的加密方式；请另存一份未加密的副本后上传",
    },
    "pdf_locked": {
        "en": "this PDF is password-protected; remove the password and upload it again",
        "zh": "该 PDF 设有密码保护；请取消密码后重新上传",
    },
    "pdf_too_many_pages": {
        "en": "this PDF has {pages:,} pages, over the limit of {limit:,}",
        "zh": "该 PDF 共有 {pages:,} 页，超过了 {limit:,} 页的上限",
    },
    "pdf_no_pages": {"en": "this PDF has no pages", "zh": "该 PDF 没有任何页面"},
    "pdf_pages_unreadable": {
        "en": "none of the pages of this PDF could be read; it may be damaged",
        "zh": "该 PDF 的所有页面都无法读取，文件可能已经损坏",
    },
    "pdf_no_text": {
        "en": "no text could be found in this PDF; it looks like a scanned (image-only) document, "
        "and OCR is not supported; upload a PDF with selectable text",
        "zh": "在该 PDF 中找不到任何文字；它看起来是扫描件（只有图片），而本系统不支持 OCR 文字识别；请上传文字可以选中的 PDF",
    },
    "page_no_text": {"en": "page {number} has no text layer (scanned?)", "zh": "第 {number} 页没有文字层（是扫描件吗？）"},
    "pages_no_text": {"en": "pages {numbers} have no text layer (scanned?)", "zh": "第 {numbers} 页没有文字层（是扫描件吗？）"},
    "page_unreadable": {"en": "page {number} could not be read (damaged?)", "zh": "第 {number} 页无法读取（可能已损坏？）"},
    "pages_unreadable": {"en": "pages {numbers} could not be read (damaged?)", "zh": "第 {numbers} 页无法读取（可能已损坏？）"},
    # Word and PowerPoint (office.py).
    "docx_no_text": {"en": "this Word document contains no text", "zh": "该 Word 文档不包含任何文字"},
    "pptx_too_many_slides": {
        "en": "this presentation has {slides:,} slides, over the limit of {limit:,}",
        "zh": "该演示文稿共有 {slides:,} 张幻灯片，超过了 {limit:,} 张的上限",
    },
    "pptx_no_slides": {"en": "this presentation has no slides", "zh": "该演示文稿没有任何幻灯片"},
    "pptx_no_text": {
        "en": "this presentation contains no text (its slides may be images only)",
        "zh": "该演示文稿不包含任何文字（幻灯片可能只有图片）",
    },
    "slide_no_text": {"en": "slide {number} has no text (images only?)", "zh": "第 {number} 张幻灯片没有文字（只有图片吗？）"},
    "slides_no_text": {"en": "slides {numbers} have no text (images only?)", "zh": "第 {numbers} 张幻灯片没有文字（只有图片吗？）"},
    # Jupyter notebooks (notebook.py).
    "notebook_bad_json": {
        "en": "this notebook is not valid JSON (it may be damaged or incomplete); open it in Jupyter and save it again",
        "zh": "该笔记本不是有效的 JSON（可能已损坏或不完整）；请在 Jupyter 中打开并重新保存",
    },
    "notebook_no_cells": {
        "en": "this file is not a Jupyter notebook (it has no list of cells)",
        "zh": "该文件不是 Jupyter 笔记本（其中没有单元格列表）",
    },
    "notebook_no_text": {"en": "this notebook has no text in any cell", "zh": "该笔记本的所有单元格中都没有文字"},
    "cell_output_cut": {
        "en": "cell {number} had a long output, which was cut",
        "zh": "第 {number} 个单元格的输出过长，已被截断",
    },
    "cells_output_cut": {
        "en": "cells {numbers} had long outputs, which were cut",
        "zh": "第 {numbers} 个单元格的输出过长，已被截断",
    },
    # Work budgets (sandbox.py, and guard.py's counts of structure before any parser runs).
    "too_complex": {
        "en": "this file is too complex to read ({reason}); simplify or split it, then upload it again",
        "zh": "该文件过于复杂，无法读取（{reason}）；请简化或拆分后重新上传",
    },
    "complex_time": {"en": "reading it took longer than {seconds:g} s", "zh": "读取时间超过了 {seconds:g} 秒"},
    "complex_cpu": {
        "en": "reading it needed more than {seconds:g} s of processor time",
        "zh": "读取所需的处理器时间超过了 {seconds:g} 秒",
    },
    "complex_memory": {
        "en": "reading it needed more than {memory_mb:,} MB of memory",
        "zh": "读取所需的内存超过了 {memory_mb:,} MB",
    },
    "complex_crash": {"en": "the reader stopped unexpectedly", "zh": "读取程序意外中止"},
    "complex_paragraphs": {
        "en": "it has at least {count:,} paragraphs; the limit is {limit:,}",
        "zh": "其中至少有 {count:,} 个段落，上限为 {limit:,} 个",
    },
    "complex_styles": {
        "en": "it defines at least {count:,} styles; the limit is {limit:,}",
        "zh": "其中至少定义了 {count:,} 种样式，上限为 {limit:,} 种",
    },
    "complex_xml": {
        "en": "one of its parts has more than {limit:,} XML elements",
        "zh": "其中一个组成部分含有超过 {limit:,} 个 XML 元素",
    },
    "complex_shapes": {
        "en": "its slides hold at least {count:,} shapes; the limit is {limit:,}",
        "zh": "其幻灯片中至少有 {count:,} 个形状，上限为 {limit:,} 个",
    },
    "complex_pdf_content": {
        "en": "its pages hold more than {limit_mb:g} MB of drawing instructions",
        "zh": "其页面中的绘图指令超过了 {limit_mb:g} MB",
    },
    "complex_cells": {
        "en": "it has {count:,} cells; the limit is {limit:,}",
        "zh": "其中有 {count:,} 个单元格，上限为 {limit:,} 个",
    },
    "complex_json": {
        "en": "it holds more than {limit:,} JSON values",
        "zh": "其中的 JSON 数据项超过了 {limit:,} 个",
    },
    "upload_cancelled": {
        "en": "reading was stopped because the session ended",
        "zh": "会话已结束，读取已停止",
    },
    # -- course stores (courserag/stores) -----------------------------------------------
    "store_unavailable": {"en": "{detail}", "zh": "{detail}"},
    "index_other_model": {
        "en": "the index of course {course_id} was built with the embedding model {built}, but this app embeds "
        "with {current}; run `python build_weaviate_index.py --course {course_id}` to re-embed it",
        "zh": "课程 {course_id} 的索引是用嵌入模型 {built} 建立的，而本应用使用 {current}；"
        "请运行 `python build_weaviate_index.py --course {course_id}` 重新建立索引",
    },
    "index_damaged": {
        "en": "some files of the course index could not be read ({files}) and are left out of answers; "
        "run `python build_weaviate_index.py --course {course_id}` to repair them",
        "zh": "课程索引中有文件无法读取（{files}），回答暂不包含它们；"
        "请运行 `python build_weaviate_index.py --course {course_id}` 修复",
    },
    "course_folder_missing": {
        "en": "the course folder {folder} does not exist",
        "zh": "课程文件夹 {folder} 不存在",
    },
    # -- answer warnings (Notice) -------------------------------------------------------
    "course_store_down": {
        "en": "The course knowledge base ({store}) is unavailable right now: {detail}. Answering from {rest} only.",
        "zh": "课程知识库（{store}）暂时无法使用：{detail}。目前只根据{rest}回答。",
    },
    "rest_notes": {"en": "your notes", "zh": "你的笔记"},
    "rest_notes_and_copy": {"en": "your notes and the local copy", "zh": "你的笔记和本地副本"},
    "course_store_fallback": {
        "en": "The course knowledge base ({store}) is unavailable right now ({detail}); answering from the local copy ({fallback}).",
        "zh": "课程知识库（{store}）暂时无法使用（{detail}），改用本地副本（{fallback}）回答。",
    },
    "llm_fallback": {
        "en": "{reason}; showing the most relevant passages instead.",
        "zh": "{reason}；改为展示最相关的原文段落。",
    },
    # -- answers (said in the question's language) ----------------------------------------
    "answer_not_found": {
        "en": "I could not find this in this course's materials or your notes, so I won't guess.",
        "zh": "在本课程的资料和你上传的笔记中没有找到相关内容，因此不作猜测。",
    },
    "answer_other_course": {
        "en": "{code} is the course code of {name}, not of this course. Choose {name} in the course list to ask about it.",
        "zh": "{code} 是课程“{name}”的代码，不是本课程的。请在课程列表中选择“{name}”后再提问。",
    },
    "answer_code_not_found": {
        "en": "This course's materials say nothing about {code}, so I won't guess.",
        "zh": "本课程的资料中没有关于 {code} 的内容，因此不作猜测。",
    },
    "answer_look_at": {
        "en": "You may want to look at {source} ({locator}).",
        "zh": "可以看看 {source}（{locator}）。",
    },
    "answer_lead": {"en": "From the materials:", "zh": "根据资料："},
    "answer_lead_zh_materials": {
        "en": "From the course materials (quoted in Chinese, as they are written):",
        "zh": "根据资料：",
    },
    "answer_lead_en_materials": {
        "en": "From the materials:",
        "zh": "答案摘自英文课程资料：",
    },
    # Said after the lead when a dated notice of a change is quoted first (extractive/recency.py).
    "answer_newer_first": {
        "en": "(The first passage is from a notice of {date}; where the materials differ, it is the newer word.)",
        "zh": "（第一条摘自 {date} 的通知；资料说法不一致时，以这条较新的通知为准。）",
    },
    # -- the language model -------------------------------------------------------------
    "llm_failed": {
        "en": "the language model at {host} failed ({kind})",
        "zh": "语言模型（{host}）出错（{kind}）",
    },
    "llm_deadline": {
        "en": "the language model at {host} did not finish its answer within {seconds:g} s",
        "zh": "语言模型（{host}）未能在 {seconds:g} 秒内完成回答",
    },
    "llm_too_long": {
        "en": "the language model at {host} wrote more than {limit:,} characters",
        "zh": "语言模型（{host}）的回答超过了 {limit:,} 个字符",
    },
    "llm_unfinished": {
        "en": "the language model at {host} stopped before finishing its answer",
        "zh": "语言模型（{host}）未能完成回答",
    },
    # -- the Study and Instructor tabs, and what they show (issue 12) -------------------
    # Parser warnings: what a file held that is not read (parsers/office.py).
    "equation_dropped": {"en": "1 equation could not be read and was left out", "zh": "有 1 个公式无法读取，已略去"},
    "equations_dropped": {
        "en": "{count} equations could not be read and were left out",
        "zh": "有 {count} 个公式无法读取，已略去",
    },
    "image_dropped": {"en": "1 image was left out: only text is read", "zh": "有 1 张图片被略去：只读取文字"},
    "images_dropped": {"en": "{count} images were left out: only text is read", "zh": "有 {count} 张图片被略去：只读取文字"},
    # Course edits and course files from the instructor tab (course_edit.py, instructor.py).
    "course_name_empty": {"en": "the course name cannot be empty", "zh": "课程名称不能为空"},
    "course_description_empty": {"en": "the course description cannot be empty", "zh": "课程简介不能为空"},
    "course_text_invalid": {
        "en": "the course {field} cannot be saved: it {problem}",
        "zh": "无法保存课程{field}：{problem}",
    },
    "course_name_too_long": {
        "en": "the course name is {chars} characters long; keep it under {limit}",
        "zh": "课程名称有 {chars} 个字符，请控制在 {limit} 个字符以内",
    },
    "course_description_too_long": {
        "en": "the description is {chars} characters long; keep it under {limit}",
        "zh": "课程简介有 {chars} 个字符，请控制在 {limit} 个字符以内",
    },
    "course_too_many_examples": {
        "en": "{count} example questions were given; at most {limit} are shown",
        "zh": "填写了 {count} 个示例问题，最多只能显示 {limit} 个",
    },
    "course_example_too_long": {
        "en": "an example question is {chars} characters long; keep each under {limit}",
        "zh": "有一个示例问题长达 {chars} 个字符，每个问题请控制在 {limit} 个字符以内",
    },
    "course_list_unwritable": {
        "en": "the course list could not be saved ({detail})",
        "zh": "无法保存课程列表（{detail}）",
    },
    "course_file_missing": {"en": "{name} is not a file of this course", "zh": "{name} 不是本课程的文件"},
    "course_file_unwritable": {
        "en": "{name} could not be saved in the course folder ({detail})",
        "zh": "无法把 {name} 保存到课程文件夹（{detail}）",
    },
    "course_file_not_upload": {
        "en": "{name} was not uploaded: only uploaded files can be added to a course",
        "zh": "{name} 不是上传的文件：只能向课程添加上传的文件",
    },
    "course_file_added": {"en": "✓ {name} was added to the course", "zh": "✓ 已将 {name} 添加到课程"},
    "build_busy": {
        "en": "another index build is running; try again when it has finished",
        "zh": "另一个索引构建正在进行，请稍后再试",
    },
    "course_file_not_indexed": {
        "en": "✗ {name} was not added: {reason}",
        "zh": "✗ 未添加 {name}：{reason}",
    },
}
MESSAGES.update(CATALOG_MESSAGES)  # the catalog's answer sentences (courserag/i18n/catalog_messages.py)


def render(code: str, params: Mapping[str, object] | None = None, lang: str = "en") -> str:
    """The sentence for `code` in `lang` (English when there is no translation).

    Parameters that are themselves `Notice`s (a nested reason) are rendered in the same
    language first.
    """
    entry = MESSAGES[code]
    template = entry.get(lang) or entry["en"]
    values = {k: (v.text(lang) if isinstance(v, Notice) else v) for k, v in (params or {}).items()}
    return template.format(**values)


def unit_word(unit: str, count: int, lang: str = "en") -> str:
    """'page' or 'pages' (by count) for a unit kind such as 'page', 'slide', 'line'."""
    code = f"unit_{unit}" if f"unit_{unit}" in MESSAGES else "unit_section"
    singular, plural = render(code, None, lang).split("|")
    return singular if count == 1 else plural


@dataclass(frozen=True)
class Notice:
    """A warning shown beside an answer (or a nested part of one), said by code."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self):
        if self.code not in MESSAGES:
            raise KeyError(f"no message for code {self.code!r}")

    def text(self, lang: str = "en") -> str:
        return render(self.code, self.params, lang)

    def __str__(self) -> str:
        return self.text("en")
