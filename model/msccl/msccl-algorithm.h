/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef NS3_ALLREDUCE_MSCCL_ALGORITHM_H
#define NS3_ALLREDUCE_MSCCL_ALGORITHM_H

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \defgroup allreduce-msccl MSCCL files
 * \ingroup allreduce
 * MSCCL algorithm files (XML): reading, checking on symbolic data, import as a plan and export of a
 * schedule (doc/allreduce.rst, "MSCCL algorithm files").
 */

/**
 * \ingroup allreduce-msccl
 * The instructions of an MSCCL algorithm step (doc/allreduce.rst, "MSCCL algorithm files").
 */
enum class MscclStepType
{
    SEND,                  //!< s: send the source to the threadblock's send peer
    RECV,                  //!< r: receive from the recv peer into the destination
    RECV_COPY_SEND,        //!< rcs: receive into the destination and send it on
    RECV_REDUCE_SEND,      //!< rrs: receive, add the source, send the sum on (not stored)
    RECV_REDUCE_COPY,      //!< rrc: receive, add the source, store the sum in the destination
    RECV_REDUCE_COPY_SEND, //!< rrcs: as rrc, and send the sum on
    COPY,                  //!< cpy: copy the source to the destination (local)
    REDUCE,                //!< re: add the source to the destination (local)
    NOP,                   //!< nop: only waits for its dependency
};

/// \return the step type's name in the file: "s", "r", "rcs", ...
std::string ToString(MscclStepType type);
/// \return true for the types that receive from the threadblock's recv peer
bool Receives(MscclStepType type);
/// \return true for the types that send to the threadblock's send peer
bool Sends(MscclStepType type);
/// \return true for the types that read the source (srcbuf, srcoff) locally
bool ReadsSource(MscclStepType type);
/// \return true for the types that write the destination (dstbuf, dstoff) locally
bool WritesDestination(MscclStepType type);

/**
 * \ingroup allreduce-msccl
 * One step of a threadblock.
 */
struct MscclStep
{
    MscclStepType type{MscclStepType::NOP}; //!< what it does
    char srcbuf{'i'};  //!< source buffer: 'i' input, 'o' output, 's' scratch
    int64_t srcoff{-1}; //!< first chunk of the source (-1: none)
    char dstbuf{'o'};  //!< destination buffer
    int64_t dstoff{-1}; //!< first chunk of the destination (-1: none)
    uint32_t cnt{1};   //!< chunks it moves, from the offsets on
    int32_t depid{-1}; //!< threadblock of the same rank it waits for (-1: none)
    int32_t deps{-1};  //!< the step of that threadblock it waits for
    bool hasdep{false}; //!< another threadblock waits for this step
    /// The round a schedule exported here runs this send in, from a comment "round N" right
    /// before the step (-1: none). MSCCL ignores it; an import lists workloads in that order.
    int64_t round{-1};
    /// The path of that send's workload, from the same comment ("round N path A B C", node ids
    /// of the exported topology; empty: none). An import onto that topology routes along it.
    std::vector<uint32_t> path;
    uint32_t line{0};  //!< line in the file (0 when not read from one)
};

/**
 * \ingroup allreduce-msccl
 * A threadblock: steps run one after another, with at most one send peer and one recv peer.
 */
struct MscclThreadblock
{
    int32_t send{-1};  //!< the rank it sends to (-1: none)
    int32_t recv{-1};  //!< the rank it receives from (-1: none)
    uint32_t chan{0};  //!< its channel
    std::vector<MscclStep> steps; //!< in order (step s is steps[s])
    uint32_t line{0};  //!< line in the file
};

/**
 * \ingroup allreduce-msccl
 * One rank (GPU) of an algorithm: its buffer sizes and its threadblocks.
 */
struct MscclGpu
{
    uint32_t iChunks{0}; //!< chunks of the input buffer
    uint32_t oChunks{0}; //!< chunks of the output buffer
    uint32_t sChunks{0}; //!< chunks of the scratch buffer
    std::vector<MscclThreadblock> threadblocks; //!< by id
    uint32_t line{0};    //!< line in the file
};

/**
 * \ingroup allreduce-msccl
 * An MSCCL algorithm, as the MSCCL executor reads it from XML (`<algo>`, `<gpu>`, `<tb>`,
 * `<step>`; doc/allreduce.rst, "MSCCL algorithm files").
 */
struct MscclAlgorithm
{
    std::string name;            //!< the name attribute
    std::string proto{"Simple"}; //!< NCCL protocol (Simple, LL, LL128); kept, not used
    std::string coll{"allreduce"}; //!< the collective
    uint32_t nchunksperloop{0};  //!< chunks the input is cut into
    uint32_t nchannels{0};       //!< channels (one more than the largest chan)
    bool inplace{true};          //!< the result is left in the input buffer
    std::vector<MscclGpu> gpus;  //!< by rank

    /// \return the number of ranks
    uint32_t GetNRanks() const
    {
        return static_cast<uint32_t>(gpus.size());
    }
};

/*
 * The MSCCL executor's limits, as its parser and kernel take a file (Azure/msccl-executor-nccl:
 * src/misc/msccl/msccl_parser.cc, src/include/msccl/msccl_struct.h, src/include/msccl/
 * msccl_parser.h, src/include/device.h, makefiles/common.mk). A file within them runs there.
 */

/// Largest number of ranks: the executor's XML reader keeps at most 1024 children of one
/// element (MAX_SUBS, msccl_parser.h), here the <gpu>s of <algo>.
constexpr uint32_t MSCCL_MAX_RANKS = 1024;
/// Largest number of chunks in one buffer: the executor keeps a step's offsets in 16 bits
/// (int16_t srcOffset, dstOffset of mscclTransmission, msccl_struct.h), so offsets stop at 32767.
constexpr uint32_t MSCCL_MAX_CHUNKS = 32768;
/// Largest number of steps of a threadblock (s="0".."63"): MSCCL_MAX_NUM_STEPS, 64 in the
/// executor's default build (makefiles/common.mk; msccl_parser.cc refuses s >= it).
constexpr uint32_t MSCCL_MAX_STEPS = 64;
/// Largest cnt of a step that moves data: msccl_parser.cc refuses cnt >= MSCCL_MAX_COUNT (72).
constexpr uint32_t MSCCL_MAX_COUNT = 71;
/// Largest number of channels: MAXCHANNELS (device.h); chan is 0..31, nchannels at most 32.
constexpr uint32_t MSCCL_MAX_CHANNELS = 32;
/// Largest number of threadblocks of a rank: MSCCL_MAX_NUM_THREAD_BLOCKS (32 per channel x 32).
constexpr uint32_t MSCCL_MAX_THREADBLOCKS = 1024;
/// Largest number of threadblocks of a rank on one channel with a send peer, and with a recv
/// peer: MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL (msccl_struct.h, checked in msccl_parser.cc).
constexpr uint32_t MSCCL_MAX_THREADBLOCKS_PER_CHANNEL = 32;
/// Largest depid: the executor keeps it in 8 bits (int8_t dependentBid, msccl_struct.h).
constexpr int32_t MSCCL_MAX_DEPID = 127;
/// Largest number of elements the executor's XML reader keeps for one rank: <algo>, every
/// <gpu>, and the rank's <tb>s and <step>s, below MAX_NODES (4096, msccl_parser.h).
constexpr uint32_t MSCCL_MAX_ELEMENTS = 4095;
/// Longest attribute value the executor's XML reader holds (MAX_STR_LEN, msccl_parser.h).
constexpr uint32_t MSCCL_MAX_ATTRIBUTE_LENGTH = 255;

/**
 * \ingroup allreduce-msccl
 * Reads an MSCCL algorithm from its XML text and checks its structure: the elements and
 * attributes (unknown ones, text between elements and an XML declaration are refused),
 * numbers, ranks and threadblock ids, steps numbered from 0, buffers and offsets within the
 * buffer sizes, step types against the threadblock's peers, dependencies that name an
 * existing step marked hasdep, and CheckMscclExecutorRules. Whether the algorithm computes an
 * AllReduce is SimulateMscclAlgorithm's job.
 * \param text the XML
 * \param source name used in errors (a file name)
 * \return the algorithm
 * \throws std::invalid_argument naming the source, the line and what is wrong
 */
MscclAlgorithm ParseMscclXml(const std::string& text, const std::string& source);

/**
 * \ingroup allreduce-msccl
 * Checks what the MSCCL executor needs beyond a well-formed file (doc/allreduce.rst, "MSCCL
 * algorithm files"): its limits (the MSCCL_MAX_ constants), nop steps as it reads them (each
 * waits for a step of another threadblock, none is waited for, and the step after nops waits
 * too), and one connection per threadblock: at most one threadblock of a rank sends to a peer
 * on a channel, and at most one receives from it. The executor has one connection per channel,
 * peer and direction, and each threadblock keeps its own copy of its step counter
 * (Azure/msccl-executor-nccl: src/device/msccl_kernel.cu, mscclRunInterpreter, one Primitives
 * per threadblock; src/device/prims_simple.h, Primitives::loadSendConn and loadRecvConn copy
 * conn->step, ~Primitives writes it back), so two threadblocks on one connection would use the
 * same buffer slots whatever orders them. With one, the k-th send from rank a to rank b on a
 * channel meets the k-th receive at b from a on it.
 * \param algorithm the algorithm
 * \param prefix the start of an error: "MSCCL algorithm 'f.xml'"
 * \throws std::invalid_argument naming the rank, threadblock and step (and line, when read from
 *         a file), the limit and what would be accepted
 */
void CheckMscclExecutorRules(const MscclAlgorithm& algorithm, const std::string& prefix);

/**
 * \ingroup allreduce-msccl
 * \param path an MSCCL algorithm file
 * \return the algorithm (ParseMscclXml)
 * \throws std::invalid_argument when the file cannot be read or is malformed
 */
MscclAlgorithm ReadMscclFile(const std::string& path);

/**
 * \ingroup allreduce-msccl
 * Writes an algorithm as MSCCL XML, every step with all its attributes, and <algo> with every
 * attribute the executor requires (outofplace, minBytes="0" and maxBytes="0": any size).
 * \param os where to write
 * \param algorithm the algorithm
 */
void WriteMscclXml(std::ostream& os, const MscclAlgorithm& algorithm);

} // namespace ns3

#endif /* NS3_ALLREDUCE_MSCCL_ALGORITHM_H */
