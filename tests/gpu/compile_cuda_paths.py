#!/usr/bin/python3
"""Compiles (syntax only) every LibTorch translation unit of the trainer with its CUDA and NCCL
paths switched on, against the LibTorch it was configured with and CUDA's headers, on a machine
with no GPU and no CUDA LibTorch: what can be checked of the CUDA path before a GPU machine.
Debian's CPU LibTorch ships c10's CUDA headers but not the one its build generates
(c10/cuda/impl/cuda_cmake_macros.h), so a stand-in is written to a temporary folder.

    tests/gpu/compile_cuda_paths.py [BUILD_DIR (default build)] [CUDA_INCLUDE (default /usr/local/cuda/include)]

BUILD_DIR is a configured build with compile_commands.json. Prints one line per file; exits 1
if any fails. It checks the branches of torch_compat.h for that LibTorch's version only.
"""
import concurrent.futures
import json
import os
import pathlib
import shlex
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]


def command_for(entry, shim, cuda_include):
    words, out, skip = shlex.split(entry["command"]), [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-o", "-Xclang"):  # their argument goes too (the object, the PCH options)
            skip = True
            continue
        if word.startswith("-include") or "cmake_pch" in word or word == "-c":
            continue
        out.append(word)
    out += ["-fsyntax-only", "-DTRAINDECK_WITH_CUDA", "-DTRAINDECK_WITH_NCCL", "-DUSE_C10D_NCCL",
            "-isystem", shim, "-isystem", cuda_include]
    if "/core/trainer/" in entry["file"]:  # the precompiled header those files are built with
        out += ["-include", str(REPO / "core/trainer/torch_pch.h")]
    return out


def main():
    build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "build")
    cuda_include = sys.argv[2] if len(sys.argv) > 2 else "/usr/local/cuda/include"
    if not (pathlib.Path(cuda_include) / "cuda_runtime_api.h").exists():
        sys.exit(f"compile_cuda_paths: no CUDA headers in {cuda_include}")
    entries = [e for e in json.loads((build / "compile_commands.json").read_text())
               if e["file"].endswith(".cpp") and ("/core/trainer/" in e["file"] or "/programs/traindeck-train/" in e["file"])
               and not any(part in e["file"] for part in ("/tokenizer/", "/data/", "/safetensors/"))]
    with tempfile.TemporaryDirectory() as shim:
        macros = pathlib.Path(shim) / "c10/cuda/impl/cuda_cmake_macros.h"
        macros.parent.mkdir(parents=True)
        macros.write_text("#define C10_CUDA_BUILD_SHARED_LIBS\n")

        def check(entry):
            done = subprocess.run(command_for(entry, shim, cuda_include), cwd=entry["directory"],
                                  capture_output=True, text=True)
            errors = [line for line in done.stderr.splitlines() if "error" in line]
            return entry["file"], done.returncode, errors[:5]

        failed = 0
        with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            for name, code, errors in pool.map(check, entries):
                failed += code != 0
                print(("ok    " if code == 0 else "FAIL  ") + os.path.relpath(name, REPO), *errors, sep="\n      ")
    print(f"compile_cuda_paths: {len(entries) - failed} of {len(entries)} files compile with the CUDA and NCCL paths on")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
