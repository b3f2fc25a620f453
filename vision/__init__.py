"""Ball detection and identification from overhead frames (docs/vision.md)."""
from vision.heap import keep_heap

keep_heap()   # every frame's arrays from kept memory, not fresh pages (``vision.heap``)
