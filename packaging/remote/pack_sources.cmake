# cmake -DSOURCE_DIR=... -DLIST=file -DOUT=dir -P pack_sources.cmake: the files named in LIST
# (relative to SOURCE_DIR, sorted) into OUT/trainer-sources.tar, and into
# OUT/trainer-sources.sha256 the SHA-256 of their names and contents (not of the tarball, whose
# owner fields vary): the same sources give the same hash on any machine.
file(STRINGS ${LIST} _files)
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${CMAKE_COMMAND} -E tar cf ${OUT}/trainer-sources.tar.tmp --format=gnutar --mtime=2000-01-01
          -- ${_files}
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "packing the trainer's sources failed (${_status})")
endif()
file(RENAME ${OUT}/trainer-sources.tar.tmp ${OUT}/trainer-sources.tar)
# The same files compressed, for the exported notebook that carries them (a quarter the size).
execute_process(
  COMMAND ${CMAKE_COMMAND} -E tar czf ${OUT}/trainer-sources.tar.gz.tmp --format=gnutar --mtime=2000-01-01
          -- ${_files}
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE _status)
if(NOT _status EQUAL 0)
  message(FATAL_ERROR "compressing the trainer's sources failed (${_status})")
endif()
file(RENAME ${OUT}/trainer-sources.tar.gz.tmp ${OUT}/trainer-sources.tar.gz)
set(_manifest "")
foreach(_f IN LISTS _files)
  file(SHA256 ${SOURCE_DIR}/${_f} _file_hash)
  string(APPEND _manifest "${_file_hash}  ${_f}\n")
endforeach()
string(SHA256 _hash "${_manifest}")
file(WRITE ${OUT}/trainer-sources.sha256 "${_hash}\n")
