# Turns the precision map's page template (precision-map.html) into a C++
# raw string literal that compiler/PrecisionMap.cpp includes, so that the
# tools carry the page and write it without reading any file at run time.
#   cmake -DINPUT=precision-map.html -DOUTPUT=PrecisionMapPage.inc -P embed.cmake
file(READ "${INPUT}" content)
string(FIND "${content}" ")mixpage\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string's delimiter")
endif()
file(WRITE "${OUTPUT}" "R\"mixpage(${content})mixpage\"\n")
