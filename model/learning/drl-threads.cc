/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "drl-threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <dlfcn.h>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ns3
{

void
RunInParallel(size_t n, uint32_t workers, const std::function<void(uint32_t, size_t)>& task)
{
    workers = static_cast<uint32_t>(std::max<size_t>(1, std::min<size_t>(workers, n)));
    std::atomic<size_t> next{0};
    std::vector<std::exception_ptr> errors(workers);
    const auto work = [&](uint32_t w) {
        try
        {
            for (size_t i = next++; i < n; i = next++)
            {
                task(w, i);
            }
        }
        catch (...)
        {
            errors[w] = std::current_exception();
            next = n;
        }
    };
    std::vector<std::thread> threads;
    for (uint32_t w = 1; w < workers; ++w)
    {
        threads.emplace_back(work, w);
    }
    work(0);
    for (auto& t : threads)
    {
        t.join();
    }
    for (const auto& e : errors)
    {
        if (e)
        {
            std::rethrow_exception(e);
        }
    }
}

namespace
{

/// \param name a function of OpenBLAS \return it, where the process has OpenBLAS loaded
///         (under LibTorch, as libblas.so.3 or libopenblas.so.0, even when loaded with
///         RTLD_LOCAL), else null
void*
FindOpenBlas(const char* name)
{
    if (void* f = dlsym(RTLD_DEFAULT, name))
    {
        return f;
    }
    for (const char* lib : {"libopenblas.so.0", "libblas.so.3"})
    {
        if (void* handle = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD))
        {
            void* f = dlsym(handle, name);
            dlclose(handle);
            if (f)
            {
                return f;
            }
        }
    }
    return nullptr;
}

/// OpenBLAS's openblas_get_parallel: 0 single-threaded build, 1 pthreads, 2 OpenMP; -1 when
/// the BLAS in the process is not OpenBLAS.
int
GetOpenBlasParallel()
{
    using Get = int (*)();
    const auto get = reinterpret_cast<Get>(FindOpenBlas("openblas_get_parallel"));
    return get ? get() : -1;
}

} // namespace

void
SetUpDrlBlas()
{
    static std::once_flag once;
    std::call_once(once, [] {
        using Set = void (*)(int);
        const auto set = reinterpret_cast<Set>(FindOpenBlas("openblas_set_num_threads"));
        if (set && !std::getenv("OPENBLAS_NUM_THREADS"))
        {
            set(1);
        }
    });
}

bool
IsDrlBlasThreadSafe()
{
    return GetOpenBlasParallel() != 0;
}

std::string
DescribeDrlBlasThreads()
{
    return "the BLAS under LibTorch is OpenBLAS built single-threaded (Debian's "
           "libopenblas0-serial), which is not safe to call from two threads at once; install "
           "libopenblas0-pthread (scripts/install-deps.sh does) or select it with "
           "update-alternatives --config libblas.so.3-x86_64-linux-gnu";
}

} // namespace ns3
