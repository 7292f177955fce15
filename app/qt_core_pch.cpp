// The translation unit that owns qt_core_pch.h's precompiled header (app/CMakeLists.txt).
