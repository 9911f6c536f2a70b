/* bcryptprimitives.dll for Wine 8.0, which lacks it: Windows 8 and later have it, and Rust's standard library
 * (so Gale's engine) imports ProcessPrng from it for random numbers. Built with mingw-w64 into the Wine prefix
 * by scripts/test-windows.mjs; on real Windows the system's own DLL is used and this file plays no part. */
#include <windows.h>

/* RtlGenRandom: advapi32's SystemFunction036, the generator ProcessPrng also draws from on Windows. */
BOOLEAN NTAPI SystemFunction036(PVOID buffer, ULONG length);

/* Fills `data` with `len` random bytes; always succeeds on Windows, so a failure here is fatal to the caller. */
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
  while (len > 0) {
    ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
    if (!SystemFunction036(data, n)) return FALSE;
    data += n;
    len -= n;
  }
  return TRUE;
}
