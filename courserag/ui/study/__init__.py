"""The Study tab: handlers (`StudyApp`), uploads, layout and wiring, what a reload keeps, the
chat's turns and the browser tabs' upload pools."""
