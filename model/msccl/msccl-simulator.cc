/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msccl-simulator.h"

#include "ns3/size-limits.h"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>

namespace ns3
{

namespace
{

/// What one chunk slot holds: a part of an input chunk, as the set of ranks it sums.
struct Content
{
    int32_t chunk{-1};          //!< the input chunk (-1: nothing written yet)
    std::vector<uint64_t> ranks; //!< bit r: rank r's contribution is in it
};

/// Chunks in flight from one send step to its receive.
struct Message
{
    std::vector<Content> data;        //!< per chunk of the step
    std::vector<uint32_t> transfers;  //!< the transfers carrying them
    uint32_t threadblock{0};          //!< the sending step's threadblock
    uint32_t step{0};                 //!< the sending step
};

/// \return the union of two ascending lists, ascending
std::vector<uint32_t>
Union(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b)
{
    std::vector<uint32_t> out;
    out.reserve(a.size() + b.size());
    std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
    return out;
}

/// Runs one algorithm; see SimulateMscclAlgorithm.
class Simulation
{
  public:
    Simulation(const MscclAlgorithm& algo, const std::string& source)
        : m_algo(algo),
          m_source(source),
          m_ranks(algo.GetNRanks()),
          m_words((m_ranks + 63) / 64)
    {
        uint64_t cells = 0;
        for (const MscclGpu& gpu : algo.gpus)
        {
            cells += uint64_t{gpu.iChunks} + (algo.inplace ? 0 : gpu.oChunks) + gpu.sChunks;
        }
        CheckMemory("simulating the buffers of MSCCL algorithm '" + source + "' (" +
                        std::to_string(cells) + " chunk slots of " + std::to_string(m_ranks) +
                        " ranks)",
                    SaturatingMultiply(cells, 8 * m_words + 48),
                    "use fewer ranks or chunks");
        m_cells.resize(m_ranks);
        m_writer.resize(m_ranks);
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            const MscclGpu& gpu = algo.gpus[r];
            m_cells[r].resize(3);
            m_writer[r].resize(3);
            m_cells[r][0].resize(gpu.iChunks);
            m_cells[r][1].resize(algo.inplace ? 0 : gpu.oChunks);
            m_cells[r][2].resize(gpu.sChunks);
            for (uint32_t b = 0; b < 3; ++b)
            {
                m_writer[r][b].assign(m_cells[r][b].size(), {-1, -1});
            }
            for (uint32_t c = 0; c < gpu.iChunks; ++c)
            {
                Content& cell = m_cells[r][0][c];
                cell.chunk = static_cast<int32_t>(c);
                cell.ranks.assign(m_words, 0);
                cell.ranks[r / 64] |= uint64_t{1} << (r % 64);
            }
            for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
            {
                const MscclThreadblock& tb = gpu.threadblocks[t];
                if (tb.recv >= 0)
                {
                    m_receivers[{static_cast<uint32_t>(tb.recv), r, tb.chan}] = t;
                }
            }
        }
        m_pc.resize(m_ranks);
        m_last.resize(m_ranks);
        m_waiters.resize(m_ranks);
        m_afterOf.resize(m_ranks);
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            const auto count = algo.gpus[r].threadblocks.size();
            m_pc[r].assign(count, 0);
            m_last[r].assign(count, {});
            m_waiters[r].assign(count, {});
        }
    }

    std::vector<MscclTransfer> Run()
    {
        std::deque<std::pair<uint32_t, uint32_t>> queue;
        std::vector<std::vector<uint8_t>> queued(m_ranks);
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            queued[r].assign(m_algo.gpus[r].threadblocks.size(), 1);
            for (uint32_t t = 0; t < queued[r].size(); ++t)
            {
                queue.emplace_back(r, t);
            }
        }
        const auto wake = [&](uint32_t r, uint32_t t) {
            if (!queued[r][t])
            {
                queued[r][t] = 1;
                queue.emplace_back(r, t);
            }
        };
        while (!queue.empty())
        {
            const auto [r, t] = queue.front();
            queue.pop_front();
            queued[r][t] = 0;
            const MscclThreadblock& tb = m_algo.gpus[r].threadblocks[t];
            while (m_pc[r][t] < tb.steps.size())
            {
                const MscclStep& step = tb.steps[m_pc[r][t]];
                if (step.depid >= 0 && m_pc[r][step.depid] <= static_cast<uint32_t>(step.deps))
                {
                    m_waiters[r][step.depid].emplace_back(r, t);
                    break;
                }
                if (Receives(step.type) &&
                    m_channels[{static_cast<uint32_t>(tb.recv), r, tb.chan}].empty())
                {
                    break; // woken by the send
                }
                const int64_t receiver = Execute(r, t, m_pc[r][t]);
                ++m_pc[r][t];
                if (receiver >= 0)
                {
                    wake(static_cast<uint32_t>(tb.send), static_cast<uint32_t>(receiver));
                }
                for (const auto& w : m_waiters[r][t])
                {
                    wake(w.first, w.second);
                }
                m_waiters[r][t].clear();
            }
        }
        CheckFinished();
        CheckResult();
        return std::move(m_transfers);
    }

  private:
    /// \return "MSCCL algorithm 'f' line 12: rank 3, step 2 of threadblock 1: "
    std::string At(uint32_t r, uint32_t t, uint32_t s) const
    {
        const MscclStep& step = m_algo.gpus[r].threadblocks[t].steps[s];
        return "MSCCL algorithm '" + m_source + "'" +
               (step.line ? " line " + std::to_string(step.line) : std::string()) + ": rank " +
               std::to_string(r) + ", step " + std::to_string(s) + " (" + ToString(step.type) +
               ") of threadblock " + std::to_string(t) + ": ";
    }

    [[noreturn]] void Fail(uint32_t r, uint32_t t, uint32_t s, const std::string& what) const
    {
        throw std::invalid_argument(At(r, t, s) + what);
    }

    /// \return the buffer index (0 input, 1 output, 2 scratch) of a buffer letter
    uint32_t BufferIndex(char buffer) const
    {
        if (buffer == 'i' || (buffer == 'o' && m_algo.inplace))
        {
            return 0;
        }
        return buffer == 'o' ? 1 : 2;
    }

    /// \return "input chunk slot 5" for messages
    static std::string SlotName(uint32_t buffer, int64_t slot)
    {
        static const char* names[] = {"input", "output", "scratch"};
        return std::string(names[buffer]) + " slot " + std::to_string(slot);
    }

    /// \return the ranks in a set, ascending
    std::vector<uint32_t> Members(const std::vector<uint64_t>& bits) const
    {
        std::vector<uint32_t> out;
        for (uint32_t q = 0; q < m_ranks; ++q)
        {
            if (bits[q / 64] >> (q % 64) & 1)
            {
                out.push_back(q);
            }
        }
        return out;
    }

    /// \return "chunk 3 summing ranks 0, 1 and 4" or "nothing"
    std::string Describe(const Content& c) const
    {
        if (c.chunk < 0)
        {
            return "nothing";
        }
        const std::vector<uint32_t> members = Members(c.ranks);
        std::string list;
        for (size_t i = 0; i < members.size(); ++i)
        {
            list += (i == 0 ? "" : (i + 1 == members.size() ? " and " : ", ")) +
                    std::to_string(members[i]);
        }
        return "chunk " + std::to_string(c.chunk) + " summing rank" +
               (members.size() == 1 ? " " : "s ") + list;
    }

    /// \return the content of a slot, refusing one nothing was written to
    const Content& Read(uint32_t r, uint32_t t, uint32_t s, char buffer, int64_t slot) const
    {
        const uint32_t b = BufferIndex(buffer);
        const Content& c = m_cells[r][b][slot];
        if (c.chunk < 0)
        {
            Fail(r, t, s, "it reads " + SlotName(b, slot) + ", which holds nothing yet (no step "
                          "wrote to it before)");
        }
        return c;
    }

    /// \return the sum of two parts of one chunk, refusing different chunks or overlap
    Content Add(uint32_t r, uint32_t t, uint32_t s, const Content& a, const std::string& aName,
                const Content& b, const std::string& bName) const
    {
        if (a.chunk != b.chunk)
        {
            Fail(r, t, s, "chunk " + std::to_string(b.chunk) + ": it reduces " + aName + " (" +
                              Describe(a) + ") with " + bName + " (" + Describe(b) +
                              "), parts of different chunks");
        }
        Content sum = a;
        for (uint32_t w = 0; w < m_words; ++w)
        {
            const uint64_t both = a.ranks[w] & b.ranks[w];
            if (both)
            {
                uint32_t q = w * 64;
                while (!(both >> (q % 64) & 1))
                {
                    ++q;
                }
                Fail(r, t, s, "chunk " + std::to_string(a.chunk) + ": it adds rank " +
                                  std::to_string(q) + "'s contribution a second time (" + aName +
                                  " and " + bName + " both hold it)");
            }
            sum.ranks[w] |= b.ranks[w];
        }
        return sum;
    }

    /// \return the frontier of a completed step (see MscclTransfer::deps)
    const std::vector<uint32_t>& AfterOf(uint32_t r, uint32_t t, uint32_t s) const
    {
        return m_afterOf[r].at({t, s});
    }

    /**
     * Runs one step whose dependencies are met (and whose message, if it receives, is in).
     * \return the threadblock that receives what it sent, to wake (-1 when it did not send;
     *         CheckMscclExecutorRules left one per connection)
     */
    int64_t Execute(uint32_t r, uint32_t t, uint32_t s)
    {
        const MscclThreadblock& tb = m_algo.gpus[r].threadblocks[t];
        const MscclStep& step = tb.steps[s];
        std::vector<uint32_t> start = m_last[r][t];
        if (step.depid >= 0)
        {
            start = Union(start, AfterOf(r, step.depid, step.deps));
        }
        Message in;
        std::string inName;
        if (Receives(step.type))
        {
            auto& channel = m_channels[{static_cast<uint32_t>(tb.recv), r, tb.chan}];
            in = std::move(channel.front());
            channel.pop_front();
            if (in.data.size() != step.cnt)
            {
                Fail(r, t, s, "it receives " + std::to_string(step.cnt) + " chunk(s) (cnt), but "
                              "the matching send, step " + std::to_string(in.step) +
                              " of threadblock " + std::to_string(in.threadblock) + " on rank " +
                              std::to_string(tb.recv) + ", sends " +
                              std::to_string(in.data.size()));
            }
            inName = "the chunk received from rank " + std::to_string(tb.recv);
        }
        Message out;
        out.threadblock = t;
        out.step = s;
        std::vector<std::pair<int64_t, Content>> writes;
        const uint32_t srcB = BufferIndex(step.srcbuf);
        const uint32_t dstB = BufferIndex(step.dstbuf);
        for (uint32_t j = 0; j < step.cnt; ++j)
        {
            const int64_t src = step.srcoff + j;
            const int64_t dst = step.dstoff + j;
            const std::string srcName = SlotName(srcB, src);
            Content value;
            switch (step.type)
            {
            case MscclStepType::SEND:
            case MscclStepType::COPY:
                value = Read(r, t, s, step.srcbuf, src);
                break;
            case MscclStepType::RECV:
            case MscclStepType::RECV_COPY_SEND:
                value = in.data[j];
                break;
            case MscclStepType::RECV_REDUCE_SEND:
            case MscclStepType::RECV_REDUCE_COPY:
            case MscclStepType::RECV_REDUCE_COPY_SEND:
                value = Add(r, t, s, Read(r, t, s, step.srcbuf, src), srcName, in.data[j],
                            inName);
                break;
            case MscclStepType::REDUCE:
                value = Add(r, t, s, Read(r, t, s, step.dstbuf, dst), SlotName(dstB, dst),
                            Read(r, t, s, step.srcbuf, src), srcName);
                break;
            case MscclStepType::NOP:
                break;
            }
            if (WritesDestination(step.type))
            {
                writes.emplace_back(dst, value);
            }
            if (Sends(step.type))
            {
                out.data.push_back(std::move(value));
            }
        }
        for (auto& w : writes)
        {
            m_cells[r][dstB][w.first] = std::move(w.second);
            m_writer[r][dstB][w.first] = {static_cast<int32_t>(t), static_cast<int32_t>(s)};
        }
        std::vector<uint32_t> after = Receives(step.type) ? Union(start, in.transfers) : start;
        int64_t receiver = -1;
        if (Sends(step.type))
        {
            const auto peer = static_cast<uint32_t>(tb.send);
            std::vector<uint32_t> sent;
            for (const Content& c : out.data)
            {
                MscclTransfer transfer;
                transfer.src = r;
                transfer.dst = peer;
                transfer.chunk = static_cast<uint32_t>(c.chunk);
                transfer.carries = Members(c.ranks);
                transfer.threadblock = t;
                transfer.step = s;
                transfer.round = step.round;
                transfer.path = step.path;
                transfer.deps = after;
                sent.push_back(static_cast<uint32_t>(m_transfers.size()));
                m_transfers.push_back(std::move(transfer));
            }
            out.transfers = sent;
            after = sent;
            const auto found = m_receivers.find({r, peer, tb.chan});
            if (found == m_receivers.end())
            {
                Fail(r, t, s, "it sends to rank " + std::to_string(peer) + " on channel " +
                                  std::to_string(tb.chan) + ", but rank " +
                                  std::to_string(peer) + " has no threadblock that receives "
                                  "from rank " + std::to_string(r) + " on that channel");
            }
            receiver = found->second;
            m_channels[{r, peer, tb.chan}].push_back(std::move(out));
        }
        if (step.hasdep)
        {
            m_afterOf[r][{t, s}] = after;
        }
        m_last[r][t] = std::move(after);
        return receiver;
    }

    /// Refuses a deadlock or a send nobody receives.
    void CheckFinished() const
    {
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (uint32_t t = 0; t < m_pc[r].size(); ++t)
            {
                const MscclThreadblock& tb = m_algo.gpus[r].threadblocks[t];
                const uint32_t s = m_pc[r][t];
                if (s == tb.steps.size())
                {
                    continue;
                }
                const MscclStep& step = tb.steps[s];
                if (step.depid >= 0 && m_pc[r][step.depid] <= static_cast<uint32_t>(step.deps))
                {
                    Fail(r, t, s, "deadlock: it waits for step " + std::to_string(step.deps) +
                                      " of threadblock " + std::to_string(step.depid) +
                                      ", which never runs (that threadblock stops at its step " +
                                      std::to_string(m_pc[r][step.depid]) + ")");
                }
                Fail(r, t, s, "deadlock: it waits for a chunk from rank " +
                                  std::to_string(tb.recv) + " on channel " +
                                  std::to_string(tb.chan) + " that is never sent (a receive "
                                  "without its send, or sends that wait on each other)");
            }
        }
        for (const auto& entry : m_channels)
        {
            if (!entry.second.empty())
            {
                const Message& m = entry.second.front();
                const uint32_t src = std::get<0>(entry.first);
                Fail(src, m.threadblock, m.step,
                     "it sends to rank " + std::to_string(std::get<1>(entry.first)) +
                         " on channel " + std::to_string(std::get<2>(entry.first)) +
                         ", which never receives it (" + std::to_string(entry.second.size()) +
                         " send(s) without a matching receive)");
            }
        }
    }

    /// Refuses a rank that does not end with the full sum of every chunk.
    void CheckResult() const
    {
        const uint32_t b = m_algo.inplace ? 0 : 1;
        for (uint32_t r = 0; r < m_ranks; ++r)
        {
            for (uint32_t c = 0; c < m_algo.nchunksperloop; ++c)
            {
                const Content& cell = m_cells[r][b][c];
                bool full = cell.chunk == static_cast<int32_t>(c);
                uint32_t missing = 0;
                for (uint32_t q = 0; full && q < m_ranks; ++q)
                {
                    if (!(cell.ranks[q / 64] >> (q % 64) & 1))
                    {
                        full = false;
                        missing = q;
                    }
                }
                if (full)
                {
                    continue;
                }
                const auto writer = m_writer[r][b][c];
                std::string why = "rank " + std::to_string(r) + ", chunk " + std::to_string(c) +
                                  ": at the end its " + SlotName(b, c) + " holds " +
                                  Describe(cell);
                if (cell.chunk == static_cast<int32_t>(c))
                {
                    why += " (rank " + std::to_string(missing) + "'s contribution is missing)";
                }
                why += ", not the sum of all " + std::to_string(m_ranks) + " ranks";
                if (writer.first >= 0)
                {
                    why += "; the last step to write it is step " +
                           std::to_string(writer.second) + " of threadblock " +
                           std::to_string(writer.first);
                }
                throw std::invalid_argument("MSCCL algorithm '" + m_source + "': " + why);
            }
        }
    }

    const MscclAlgorithm& m_algo; //!< the algorithm
    const std::string& m_source;  //!< its file
    uint32_t m_ranks;             //!< ranks
    uint32_t m_words;             //!< 64-bit words of a rank set
    /// per rank, per buffer (input, output, scratch), per slot
    std::vector<std::vector<std::vector<Content>>> m_cells;
    /// per rank, buffer and slot, the (threadblock, step) that last wrote it
    std::vector<std::vector<std::vector<std::pair<int32_t, int32_t>>>> m_writer;
    /// per (sender, receiver, channel), the messages sent and not yet received
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::deque<Message>> m_channels;
    /// per (sender, receiver, channel), the receiver's threadblock that receives on it
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> m_receivers;
    std::vector<std::vector<uint32_t>> m_pc; //!< per rank and threadblock, the next step
    /// per rank and threadblock, the frontier of its last completed step
    std::vector<std::vector<std::vector<uint32_t>>> m_last;
    /// per rank and threadblock, the threadblocks waiting for its next step
    std::vector<std::vector<std::vector<std::pair<uint32_t, uint32_t>>>> m_waiters;
    /// per rank, the frontiers of completed steps others wait for (hasdep)
    std::vector<std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>>> m_afterOf;
    std::vector<MscclTransfer> m_transfers; //!< in the order sent
};

} // namespace

std::vector<MscclTransfer>
SimulateMscclAlgorithm(const MscclAlgorithm& algorithm, const std::string& source)
{
    // The matching of sends and receives below needs one threadblock per connection.
    CheckMscclExecutorRules(algorithm, "MSCCL algorithm '" + source + "'");
    return Simulation(algorithm, source).Run();
}

} // namespace ns3
