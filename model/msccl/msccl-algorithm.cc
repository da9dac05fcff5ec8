/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msccl-algorithm.h"

#include "ns3/text-file.h"

#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tinyxml2.h>
#include <utility>

namespace ns3
{

namespace
{

/// The step types by their names in the file.
const std::map<std::string, MscclStepType> STEP_TYPES = {
    {"s", MscclStepType::SEND},
    {"r", MscclStepType::RECV},
    {"rcs", MscclStepType::RECV_COPY_SEND},
    {"rrs", MscclStepType::RECV_REDUCE_SEND},
    {"rrc", MscclStepType::RECV_REDUCE_COPY},
    {"rrcs", MscclStepType::RECV_REDUCE_COPY_SEND},
    {"cpy", MscclStepType::COPY},
    {"re", MscclStepType::REDUCE},
    {"nop", MscclStepType::NOP},
};

/// Largest algorithm file read, in bytes.
constexpr uint64_t MAX_FILE_BYTES = uint64_t{256} << 20;

/// Reads the attributes of one element, naming the source, the line and the element in errors.
class Attributes
{
  public:
    /**
     * \param source the file
     * \param element the element
     * \param where "step 3 of threadblock 2 on rank 0", or empty for the element's name
     * \param known the attributes it may have; any other is refused
     */
    Attributes(const std::string& source,
               const tinyxml2::XMLElement& element,
               std::string where,
               const std::set<std::string>& known)
        : m_source(source),
          m_element(element),
          m_where(where.empty() ? "<" + std::string(element.Name()) + ">" : std::move(where))
    {
        for (const tinyxml2::XMLAttribute* a = element.FirstAttribute(); a; a = a->Next())
        {
            if (!known.count(a->Name()))
            {
                std::string list;
                for (const std::string& k : known)
                {
                    list += (list.empty() ? "" : ", ") + k;
                }
                Fail("unknown attribute '" + Abbreviate(a->Name()) + "' (a <" +
                     element.Name() + "> has " + list + ")");
            }
        }
    }

    /// \throws std::invalid_argument naming the place and what is wrong
    [[noreturn]] void Fail(const std::string& what) const
    {
        throw std::invalid_argument("MSCCL algorithm '" + m_source + "' line " +
                                    std::to_string(m_element.GetLineNum()) + ": " + m_where +
                                    ": " + what);
    }

    /// \return true when the attribute is given
    bool Has(const char* name) const
    {
        return m_element.Attribute(name) != nullptr;
    }

    /// \return the attribute's text \throws when it is missing
    std::string Text(const char* name) const
    {
        const char* value = m_element.Attribute(name);
        if (!value)
        {
            Fail(std::string("attribute '") + name + "' is missing");
        }
        return value;
    }

    /**
     * \return the attribute as a whole number from -1 (when allowed) to max
     * \throws when it is missing, not a whole number or out of range
     */
    int64_t Number(const char* name, int64_t min, int64_t max) const
    {
        const std::string text = Text(name);
        uint64_t value = 0;
        const bool negative = !text.empty() && text[0] == '-';
        const std::string digits = negative ? text.substr(1) : text;
        if (ParseWholeNumber(digits, static_cast<uint64_t>(max) + 1, value))
        {
            const int64_t v = negative ? -static_cast<int64_t>(value) : static_cast<int64_t>(value);
            if (v >= min && v <= max)
            {
                return v;
            }
        }
        Fail(std::string("attribute '") + name + "' must be a whole number " +
             std::to_string(min) + ".." + std::to_string(max) + ", got '" + Abbreviate(text) +
             "'");
    }

    /// \return the attribute as a number, or fallback when it is not given
    int64_t NumberOr(const char* name, int64_t min, int64_t max, int64_t fallback) const
    {
        return Has(name) ? Number(name, min, max) : fallback;
    }

    /// \return the buffer named by the attribute: 'i', 'o' or 's'
    char Buffer(const char* name) const
    {
        const std::string text = Text(name);
        if (text != "i" && text != "o" && text != "s")
        {
            Fail(std::string("attribute '") + name + "' must be i (input), o (output) or s " +
                 "(scratch), got '" + Abbreviate(text) + "'");
        }
        return text[0];
    }

  private:
    const std::string& m_source;            //!< the file
    const tinyxml2::XMLElement& m_element;  //!< the element
    std::string m_where;                    //!< the element, for errors
};

/// \return the child elements of e, each checked to be named `name`
std::vector<const tinyxml2::XMLElement*>
Children(const Attributes& parent, const tinyxml2::XMLElement& e, const char* name)
{
    std::vector<const tinyxml2::XMLElement*> out;
    for (const tinyxml2::XMLElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement())
    {
        if (std::string(c->Name()) != name)
        {
            parent.Fail("has a <" + Abbreviate(c->Name()) + "> at line " +
                        std::to_string(c->GetLineNum()) + "; it may only hold <" + name + ">");
        }
        out.push_back(c);
    }
    return out;
}

/// \return "step 3 of threadblock 2 on rank 0"
std::string
StepName(uint32_t rank, uint32_t tb, uint32_t step)
{
    return "step " + std::to_string(step) + " of threadblock " + std::to_string(tb) +
           " on rank " + std::to_string(rank);
}

/**
 * Reads the hint of our export from the comment before a send step: "round N" and optionally
 * "path A B C"; anything else leaves the step without a hint (a comment is never an error).
 */
void
ReadHint(const std::string& comment, MscclStep& step)
{
    std::istringstream is(comment);
    std::string word;
    std::string number;
    uint64_t round = 0;
    if (!(is >> word) || word != "round" || !(is >> number) ||
        !ParseWholeNumber(number, MSCCL_MAX_CHUNKS, round))
    {
        return;
    }
    std::vector<uint32_t> path;
    if (is >> word)
    {
        uint64_t node = 0;
        while (word == "path" && is >> number)
        {
            if (!ParseWholeNumber(number, UINT32_MAX - 1, node) || path.size() > 4096)
            {
                return;
            }
            path.push_back(static_cast<uint32_t>(node));
        }
        if (path.size() < 2)
        {
            return;
        }
    }
    step.round = static_cast<int64_t>(round);
    step.path = std::move(path);
}

/// Reads one <tb>'s steps and checks each on its own.
void
ReadSteps(const std::string& source,
          const tinyxml2::XMLElement& tbElement,
          const Attributes& tbAttributes,
          uint32_t rank,
          uint32_t tbId,
          const MscclGpu& gpu,
          bool inplace,
          MscclThreadblock& tb)
{
    static const std::set<std::string> known = {
        "s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep"};
    const auto steps = Children(tbAttributes, tbElement, "step");
    for (size_t k = 0; k < steps.size(); ++k)
    {
        const Attributes a(source, *steps[k], StepName(rank, tbId, k), known);
        MscclStep step;
        step.line = static_cast<uint32_t>(steps[k]->GetLineNum());
        const int64_t s = a.Number("s", 0, INT32_MAX);
        if (s != static_cast<int64_t>(k))
        {
            a.Fail("steps must be numbered 0, 1, ... in order (s=\"" + std::to_string(k) +
                   "\" here), got s=\"" + std::to_string(s) + "\"");
        }
        const std::string type = a.Text("type");
        const auto found = STEP_TYPES.find(type);
        if (found == STEP_TYPES.end())
        {
            a.Fail("type must be one of s, r, rcs, rrs, rrc, rrcs, cpy, re, nop, got '" +
                   Abbreviate(type) + "'");
        }
        step.type = found->second;
        // msccl-tools writes cnt="0" on nop steps, which move nothing.
        step.cnt = static_cast<uint32_t>(a.NumberOr("cnt", 0, MSCCL_MAX_CHUNKS, 1));
        if (step.cnt == 0 && step.type != MscclStepType::NOP)
        {
            a.Fail("a '" + type + "' step moves cnt chunks, at least 1, got cnt=\"0\"");
        }
        if (Receives(step.type) && tb.recv < 0)
        {
            a.Fail("a '" + type + "' step receives, but its threadblock has no recv peer (recv=-1)");
        }
        if (Sends(step.type) && tb.send < 0)
        {
            a.Fail("a '" + type + "' step sends, but its threadblock has no send peer (send=-1)");
        }
        const auto buffer = [&](const char* bufName, const char* offName, char& buf,
                                int64_t& off) {
            buf = a.Buffer(bufName);
            off = a.Number(offName, 0, MSCCL_MAX_CHUNKS);
            const char actual = inplace && buf == 'o' ? 'i' : buf; // in place, o is i
            const uint32_t size =
                actual == 'i' ? gpu.iChunks : (actual == 'o' ? gpu.oChunks : gpu.sChunks);
            if (off + step.cnt > size)
            {
                a.Fail(std::string(bufName) + "=\"" + buf + "\" chunks " + std::to_string(off) +
                       ".." + std::to_string(off + step.cnt - 1) + " (" + offName + " and cnt) " +
                       "lie beyond the buffer's " + std::to_string(size) + " chunks (<gpu> " +
                       (actual == 'i' ? "i_chunks" : (actual == 'o' ? "o_chunks" : "s_chunks")) +
                       ")");
            }
        };
        if (ReadsSource(step.type))
        {
            buffer("srcbuf", "srcoff", step.srcbuf, step.srcoff);
        }
        if (WritesDestination(step.type))
        {
            buffer("dstbuf", "dstoff", step.dstbuf, step.dstoff);
        }
        step.depid = static_cast<int32_t>(a.NumberOr("depid", -1, INT32_MAX, -1));
        step.deps = static_cast<int32_t>(a.NumberOr("deps", -1, INT32_MAX, -1));
        if ((step.depid < 0) != (step.deps < 0))
        {
            a.Fail("depid and deps name a step of another threadblock together: give both or "
                   "neither (-1), got depid=\"" + std::to_string(step.depid) + "\" deps=\"" +
                   std::to_string(step.deps) + "\"");
        }
        step.hasdep = a.NumberOr("hasdep", 0, 1, 0) == 1;
        // A comment "round N" right before it: the round of our export (a hint, see MscclStep).
        const tinyxml2::XMLNode* before = steps[k]->PreviousSibling();
        const tinyxml2::XMLComment* comment = before ? before->ToComment() : nullptr;
        if (comment && Sends(step.type))
        {
            ReadHint(comment->Value(), step);
        }
        tb.steps.push_back(step);
    }
}

/**
 * Parses the XML text.
 * \param doc the document to parse into \param text the XML \param source the file, for errors
 * \return its one <algo> element
 * \throws std::invalid_argument when it is not well-formed or not one <algo> element
 */
const tinyxml2::XMLElement&
ParseAlgoElement(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& source)
{
    if (doc.Parse(text.data(), text.size()) != tinyxml2::XML_SUCCESS)
    {
        throw std::invalid_argument("MSCCL algorithm '" + source + "' line " +
                                    std::to_string(doc.ErrorLineNum()) + ": not well-formed XML (" +
                                    doc.ErrorName() + ")");
    }
    const tinyxml2::XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "algo" || root->NextSiblingElement())
    {
        throw std::invalid_argument(
            "MSCCL algorithm '" + source + "': the document must be one <algo> element (" +
            (root ? "found <" + Abbreviate(root->Name()) + ">" : std::string("it is empty")) +
            "); is this an MSCCL algorithm file?");
    }
    return *root;
}

/**
 * Reads the attributes of <algo>.
 * \param a the attributes \param[out] algo gets its name, protocol, collective, chunks,
 *        channels and whether it runs in place
 * \return ngpus
 */
uint32_t
ReadAlgoAttributes(const Attributes& a, MscclAlgorithm& algo)
{
    algo.name = a.Has("name") ? a.Text("name") : "";
    algo.proto = a.Has("proto") ? a.Text("proto") : "Simple";
    algo.coll = a.Text("coll");
    if (algo.coll != "allreduce")
    {
        a.Fail("coll is '" + Abbreviate(algo.coll) + "'; only coll=\"allreduce\" algorithms can "
               "be run here");
    }
    if (a.Has("redop") && a.Text("redop") != "sum")
    {
        a.Fail("redop is '" + Abbreviate(a.Text("redop")) + "'; the AllReduce here sums");
    }
    const auto ngpus = static_cast<uint32_t>(a.Number("ngpus", 1, MSCCL_MAX_RANKS));
    algo.nchunksperloop = static_cast<uint32_t>(a.Number("nchunksperloop", 1, MSCCL_MAX_CHUNKS));
    algo.nchannels = static_cast<uint32_t>(a.Number("nchannels", 0, 1024));
    algo.inplace = a.Number("inplace", 0, 1) == 1;
    if (a.Has("outofplace") && (a.Number("outofplace", 0, 1) == 1) == algo.inplace)
    {
        a.Fail("inplace and outofplace disagree");
    }
    return ngpus;
}

/// Per (peer, channel), the threadblock of a rank that sends to (receives from) the peer on it.
using Connections = std::map<std::pair<int32_t, uint32_t>, uint32_t>;

/**
 * Reads one <tb> of a rank (not yet its steps) and checks it on its own and against the
 * rank's threadblocks before it.
 * \param source the file \param t the element \param rank the rank
 * \param count the rank's threadblocks \param algo the algorithm, its GPU being read
 * \param[in,out] tbElement per threadblock id of the rank, its element once read
 * \param[in,out] sendChannel the rank's threadblocks that send, by (peer, channel)
 * \param[in,out] recvChannel the rank's threadblocks that receive, by (peer, channel)
 */
void
ReadThreadblock(const std::string& source,
                const tinyxml2::XMLElement& t,
                uint32_t rank,
                size_t count,
                MscclAlgorithm& algo,
                std::vector<const tinyxml2::XMLElement*>& tbElement,
                Connections& sendChannel,
                Connections& recvChannel)
{
    const uint32_t ngpus = algo.GetNRanks();
    const std::string rankName = "rank " + std::to_string(rank);
    const Attributes ta(source, t, rankName + ", <tb>", {"id", "send", "recv", "chan"});
    const auto tbId = static_cast<uint32_t>(ta.Number("id", 0, static_cast<int64_t>(count) - 1));
    if (tbElement[tbId])
    {
        ta.Fail("threadblock " + std::to_string(tbId) + " is given twice (ids are 0.." +
                std::to_string(count - 1) + ", each once)");
    }
    tbElement[tbId] = &t;
    MscclGpu& gpu = algo.gpus[rank];
    MscclThreadblock& tb = gpu.threadblocks[tbId];
    const std::string name = "threadblock " + std::to_string(tbId) + " on " + rankName;
    tb.line = static_cast<uint32_t>(t.GetLineNum());
    tb.send = static_cast<int32_t>(ta.Number("send", -1, ngpus - 1));
    tb.recv = static_cast<int32_t>(ta.Number("recv", -1, ngpus - 1));
    tb.chan = static_cast<uint32_t>(ta.Number("chan", 0, 1023));
    if (tb.send == static_cast<int32_t>(rank) || tb.recv == static_cast<int32_t>(rank))
    {
        ta.Fail(name + " names its own rank as a peer");
    }
    if (tb.chan >= algo.nchannels)
    {
        ta.Fail(name + ": chan " + std::to_string(tb.chan) + " is not below nchannels (" +
                std::to_string(algo.nchannels) + ")");
    }
    // MSCCL connects one threadblock per peer and channel in each direction.
    for (auto* side : {&sendChannel, &recvChannel})
    {
        const int32_t peer = side == &sendChannel ? tb.send : tb.recv;
        if (peer < 0)
        {
            continue;
        }
        const auto inserted = side->emplace(std::make_pair(peer, tb.chan), tbId);
        if (!inserted.second)
        {
            ta.Fail(name + " and threadblock " + std::to_string(inserted.first->second) +
                    " both " + (side == &sendChannel ? "send to" : "receive from") +
                    " rank " + std::to_string(peer) + " on channel " +
                    std::to_string(tb.chan) + "; MSCCL allows one threadblock per peer "
                    "and channel in each direction");
        }
    }
    ReadSteps(source, t, ta, rank, tbId, gpu, algo.inplace, tb);
}

/**
 * Reads one <gpu>, its threadblocks and their steps.
 * \param source the file \param g the element \param algo the algorithm, its GPUs sized
 * \param[in,out] gpuElement per rank, its element once read
 */
void
ReadGpu(const std::string& source,
        const tinyxml2::XMLElement& g,
        MscclAlgorithm& algo,
        std::vector<const tinyxml2::XMLElement*>& gpuElement)
{
    const uint32_t ngpus = algo.GetNRanks();
    const Attributes ga(source, g, "", {"id", "i_chunks", "o_chunks", "s_chunks"});
    const auto id = static_cast<uint32_t>(ga.Number("id", 0, ngpus - 1));
    if (gpuElement[id])
    {
        ga.Fail("rank " + std::to_string(id) + " is given twice (also at line " +
                std::to_string(gpuElement[id]->GetLineNum()) + ")");
    }
    gpuElement[id] = &g;
    MscclGpu& gpu = algo.gpus[id];
    gpu.line = static_cast<uint32_t>(g.GetLineNum());
    gpu.iChunks = static_cast<uint32_t>(ga.Number("i_chunks", 0, MSCCL_MAX_CHUNKS));
    gpu.oChunks = static_cast<uint32_t>(ga.Number("o_chunks", 0, MSCCL_MAX_CHUNKS));
    gpu.sChunks = static_cast<uint32_t>(ga.Number("s_chunks", 0, MSCCL_MAX_CHUNKS));
    const std::string rank = "rank " + std::to_string(id);
    if (gpu.iChunks != algo.nchunksperloop)
    {
        ga.Fail(rank + ": i_chunks must be nchunksperloop (" +
                std::to_string(algo.nchunksperloop) + "), the chunks of an AllReduce's "
                "input, got " + std::to_string(gpu.iChunks));
    }
    if (!algo.inplace && gpu.oChunks != algo.nchunksperloop)
    {
        ga.Fail(rank + ": out of place (inplace=\"0\"), o_chunks must be nchunksperloop (" +
                std::to_string(algo.nchunksperloop) + "), got " + std::to_string(gpu.oChunks));
    }
    const auto tbs = Children(ga, g, "tb");
    gpu.threadblocks.resize(tbs.size());
    std::vector<const tinyxml2::XMLElement*> tbElement(tbs.size(), nullptr);
    Connections sendChannel;
    Connections recvChannel;
    for (const tinyxml2::XMLElement* t : tbs)
    {
        ReadThreadblock(source, *t, id, tbs.size(), algo, tbElement, sendChannel, recvChannel);
    }
}

/**
 * Checks the dependencies, once every threadblock of the rank is known: each names an
 * existing step, marked hasdep.
 * \param source the file \param algo the algorithm
 * \throws std::invalid_argument naming the first step whose dependency is wrong
 */
void
CheckDependencies(const std::string& source, const MscclAlgorithm& algo)
{
    for (uint32_t r = 0; r < algo.GetNRanks(); ++r)
    {
        const MscclGpu& gpu = algo.gpus[r];
        for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
        {
            const MscclThreadblock& tb = gpu.threadblocks[t];
            for (uint32_t s = 0; s < tb.steps.size(); ++s)
            {
                const MscclStep& step = tb.steps[s];
                if (step.depid < 0)
                {
                    continue;
                }
                const auto fail = [&](const std::string& what) {
                    throw std::invalid_argument("MSCCL algorithm '" + source + "' line " +
                                                std::to_string(step.line) + ": " +
                                                StepName(r, t, s) + ": " + what);
                };
                if (static_cast<uint32_t>(step.depid) >= gpu.threadblocks.size())
                {
                    fail("depid " + std::to_string(step.depid) + " is not a threadblock of rank " +
                         std::to_string(r) + " (0.." +
                         std::to_string(gpu.threadblocks.size() - 1) + ")");
                }
                const MscclThreadblock& other = gpu.threadblocks[step.depid];
                if (static_cast<uint32_t>(step.deps) >= other.steps.size())
                {
                    fail("deps " + std::to_string(step.deps) + " is not a step of threadblock " +
                         std::to_string(step.depid) + " (it has " +
                         std::to_string(other.steps.size()) + ")");
                }
                if (!other.steps[step.deps].hasdep)
                {
                    fail("it waits for " + StepName(r, step.depid, step.deps) +
                         ", which has hasdep=\"0\": the MSCCL executor would not signal it");
                }
            }
        }
    }
}

} // namespace

std::string
ToString(MscclStepType type)
{
    for (const auto& entry : STEP_TYPES)
    {
        if (entry.second == type)
        {
            return entry.first;
        }
    }
    return "?";
}

bool
Receives(MscclStepType type)
{
    switch (type)
    {
    case MscclStepType::RECV:
    case MscclStepType::RECV_COPY_SEND:
    case MscclStepType::RECV_REDUCE_SEND:
    case MscclStepType::RECV_REDUCE_COPY:
    case MscclStepType::RECV_REDUCE_COPY_SEND:
        return true;
    default:
        return false;
    }
}

bool
Sends(MscclStepType type)
{
    switch (type)
    {
    case MscclStepType::SEND:
    case MscclStepType::RECV_COPY_SEND:
    case MscclStepType::RECV_REDUCE_SEND:
    case MscclStepType::RECV_REDUCE_COPY_SEND:
        return true;
    default:
        return false;
    }
}

bool
ReadsSource(MscclStepType type)
{
    switch (type)
    {
    case MscclStepType::SEND:
    case MscclStepType::RECV_REDUCE_SEND:
    case MscclStepType::RECV_REDUCE_COPY:
    case MscclStepType::RECV_REDUCE_COPY_SEND:
    case MscclStepType::COPY:
    case MscclStepType::REDUCE:
        return true;
    default:
        return false;
    }
}

bool
WritesDestination(MscclStepType type)
{
    switch (type)
    {
    case MscclStepType::RECV:
    case MscclStepType::RECV_COPY_SEND:
    case MscclStepType::RECV_REDUCE_COPY:
    case MscclStepType::RECV_REDUCE_COPY_SEND:
    case MscclStepType::COPY:
    case MscclStepType::REDUCE:
        return true;
    default:
        return false;
    }
}

MscclAlgorithm
ParseMscclXml(const std::string& text, const std::string& source)
{
    tinyxml2::XMLDocument doc;
    const tinyxml2::XMLElement& root = ParseAlgoElement(doc, text, source);
    const Attributes a(source,
                       root,
                       "",
                       {"name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll",
                        "inplace", "outofplace", "minBytes", "maxBytes", "redop"});
    MscclAlgorithm algo;
    const uint32_t ngpus = ReadAlgoAttributes(a, algo);
    const auto gpus = Children(a, root, "gpu");
    if (gpus.size() != ngpus)
    {
        a.Fail("ngpus is " + std::to_string(ngpus) + " but there are " +
               std::to_string(gpus.size()) + " <gpu> elements");
    }
    algo.gpus.resize(ngpus);
    std::vector<const tinyxml2::XMLElement*> gpuElement(ngpus, nullptr);
    for (const tinyxml2::XMLElement* g : gpus)
    {
        ReadGpu(source, *g, algo, gpuElement);
    }
    CheckDependencies(source, algo);
    return algo;
}

MscclAlgorithm
ReadMscclFile(const std::string& path)
{
    return ParseMscclXml(ReadTextFile(path, "MSCCL algorithm file", MAX_FILE_BYTES), path);
}

void
WriteMscclXml(std::ostream& os, const MscclAlgorithm& algorithm)
{
    tinyxml2::XMLPrinter printer;
    printer.OpenElement("algo");
    printer.PushAttribute("name", algorithm.name.c_str());
    printer.PushAttribute("proto", algorithm.proto.c_str());
    printer.PushAttribute("nchannels", algorithm.nchannels);
    printer.PushAttribute("nchunksperloop", algorithm.nchunksperloop);
    printer.PushAttribute("ngpus", algorithm.GetNRanks());
    printer.PushAttribute("coll", algorithm.coll.c_str());
    printer.PushAttribute("inplace", algorithm.inplace ? 1 : 0);
    for (uint32_t r = 0; r < algorithm.GetNRanks(); ++r)
    {
        const MscclGpu& gpu = algorithm.gpus[r];
        printer.OpenElement("gpu");
        printer.PushAttribute("id", r);
        printer.PushAttribute("i_chunks", gpu.iChunks);
        printer.PushAttribute("o_chunks", gpu.oChunks);
        printer.PushAttribute("s_chunks", gpu.sChunks);
        for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
        {
            const MscclThreadblock& tb = gpu.threadblocks[t];
            printer.OpenElement("tb");
            printer.PushAttribute("id", t);
            printer.PushAttribute("send", tb.send);
            printer.PushAttribute("recv", tb.recv);
            printer.PushAttribute("chan", tb.chan);
            for (uint32_t s = 0; s < tb.steps.size(); ++s)
            {
                const MscclStep& step = tb.steps[s];
                if (step.round >= 0)
                {
                    std::string hint = " round " + std::to_string(step.round);
                    if (!step.path.empty())
                    {
                        hint += " path";
                        for (uint32_t node : step.path)
                        {
                            hint += " " + std::to_string(node);
                        }
                    }
                    printer.PushComment((hint + " ").c_str());
                }
                printer.OpenElement("step");
                printer.PushAttribute("s", s);
                printer.PushAttribute("type", ToString(step.type).c_str());
                printer.PushAttribute("srcbuf", std::string(1, step.srcbuf).c_str());
                printer.PushAttribute("srcoff", static_cast<int64_t>(step.srcoff));
                printer.PushAttribute("dstbuf", std::string(1, step.dstbuf).c_str());
                printer.PushAttribute("dstoff", static_cast<int64_t>(step.dstoff));
                printer.PushAttribute("cnt", step.cnt);
                printer.PushAttribute("depid", step.depid);
                printer.PushAttribute("deps", step.deps);
                printer.PushAttribute("hasdep", step.hasdep ? 1 : 0);
                printer.CloseElement();
            }
            printer.CloseElement();
        }
        printer.CloseElement();
    }
    printer.CloseElement();
    os << printer.CStr();
}

} // namespace ns3
