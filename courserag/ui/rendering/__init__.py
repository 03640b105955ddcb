"""What every tab renders with: the HTML/Markdown blocks, the one sanitizer, math, the numbers
of sources, the source panel's passages and the translated labels. Imports no feature package."""
