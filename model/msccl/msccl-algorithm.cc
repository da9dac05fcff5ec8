/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "msccl-algorithm.h"

#include "ns3/text-file.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tinyxml2.h>
#include <tuple>
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
            const size_t length = std::string(a->Value()).size();
            if (length > MSCCL_MAX_ATTRIBUTE_LENGTH)
            {
                Fail("attribute '" + std::string(a->Name()) + "' is " + std::to_string(length) +
                     " characters long; the MSCCL executor reads at most " +
                     std::to_string(MSCCL_MAX_ATTRIBUTE_LENGTH) + " (MAX_STR_LEN)");
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
    int64_t Number(const char* name, int64_t min, int64_t max, const std::string& why = "") const
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
             std::to_string(min) + ".." + std::to_string(max) +
             (why.empty() ? std::string() : " (" + why + ")") + ", got '" + Abbreviate(text) +
             "'");
    }

    /// \return the attribute as a number, or fallback when it is not given
    int64_t NumberOr(const char* name,
                     int64_t min,
                     int64_t max,
                     int64_t fallback,
                     const std::string& why = "") const
    {
        return Has(name) ? Number(name, min, max, why) : fallback;
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

/**
 * \return the child elements of e, each checked to be named `name` (none when name is empty);
 *         text other than blanks between them is refused, as the MSCCL executor refuses it
 */
std::vector<const tinyxml2::XMLElement*>
Children(const Attributes& parent, const tinyxml2::XMLElement& e, const std::string& name)
{
    const std::string holds = name.empty() ? "nothing" : "only <" + name + "> elements";
    std::vector<const tinyxml2::XMLElement*> out;
    for (const tinyxml2::XMLNode* node = e.FirstChild(); node; node = node->NextSibling())
    {
        const std::string at = " at line " + std::to_string(node->GetLineNum());
        if (node->ToComment())
        {
            continue;
        }
        if (const tinyxml2::XMLText* text = node->ToText())
        {
            const std::string value = text->Value();
            const size_t start = value.find_first_not_of(" \t\r\n");
            if (!text->CData() && start == std::string::npos)
            {
                continue;
            }
            const size_t from = start == std::string::npos ? 0 : start;
            const size_t end = value.find_last_not_of(" \t\r\n");
            parent.Fail("has text '" +
                        Abbreviate(start == std::string::npos ? value
                                                              : value.substr(from, end + 1 - from)) +
                        "'" + at + "; a <" + e.Name() + "> holds " +
                        holds + " (the MSCCL executor refuses text there)");
        }
        const tinyxml2::XMLElement* c = node->ToElement();
        if (!c || c->Name() != name)
        {
            parent.Fail("has " + (c ? "a <" + Abbreviate(c->Name()) + ">" : std::string("markup")) +
                        at + "; a <" + e.Name() + "> holds " + holds);
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
    if (steps.size() > MSCCL_MAX_STEPS)
    {
        const Attributes a(source, *steps[MSCCL_MAX_STEPS], StepName(rank, tbId, MSCCL_MAX_STEPS),
                           known);
        a.Fail("threadblock " + std::to_string(tbId) + " has " + std::to_string(steps.size()) +
               " steps; the MSCCL executor runs at most " + std::to_string(MSCCL_MAX_STEPS) +
               " per threadblock (MSCCL_MAX_NUM_STEPS of its default build): split it into "
               "threadblocks on the same peers and channel, each waiting for the one before");
    }
    for (size_t k = 0; k < steps.size(); ++k)
    {
        const Attributes a(source, *steps[k], StepName(rank, tbId, k), known);
        Children(a, *steps[k], ""); // a <step> holds nothing
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
        // msccl-tools writes cnt="0" on nop steps, which move nothing (the executor ignores it).
        if (step.type == MscclStepType::NOP)
        {
            step.cnt = static_cast<uint32_t>(a.NumberOr("cnt", 0, MSCCL_MAX_CHUNKS, 1));
        }
        else
        {
            step.cnt = static_cast<uint32_t>(
                a.NumberOr("cnt", 0, MSCCL_MAX_COUNT, 1,
                           "the MSCCL executor moves at most " + std::to_string(MSCCL_MAX_COUNT) +
                               " chunks in one step, MSCCL_MAX_COUNT - 1"));
        }
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
            off = a.Number(offName, 0, MSCCL_MAX_CHUNKS - 1);
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
        step.depid = static_cast<int32_t>(
            a.NumberOr("depid", -1, MSCCL_MAX_DEPID, -1,
                       "the MSCCL executor keeps depid in 8 bits; a step can wait only for "
                       "threadblocks 0.." + std::to_string(MSCCL_MAX_DEPID)));
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
    for (const tinyxml2::XMLNode* node = doc.FirstChild(); node; node = node->NextSibling())
    {
        const tinyxml2::XMLText* text = node->ToText();
        if (node->ToDeclaration() || node->ToUnknown() ||
            (text && std::string(text->Value()).find_first_not_of(" \t\r\n") != std::string::npos))
        {
            throw std::invalid_argument(
                "MSCCL algorithm '" + source + "' line " + std::to_string(node->GetLineNum()) +
                ": '" + Abbreviate(node->Value()) + "' outside <algo>; the MSCCL executor reads "
                "only the <algo> element and comments (no XML declaration <?xml ...?>): remove it");
        }
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
    if (HasControlCharacter(algo.name))
    {
        a.Fail("name holds a control character (such as ESC or a newline), got '" +
               Abbreviate(algo.name, 40) + "'; give printable text");
    }
    algo.proto = a.Has("proto") ? a.Text("proto") : "Simple";
    if (algo.proto != "Simple" && algo.proto != "LL" && algo.proto != "LL128")
    {
        a.Fail("proto must be Simple, LL or LL128 (the MSCCL executor's protocols), got '" +
               Abbreviate(algo.proto) + "'");
    }
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
    const auto ngpus = static_cast<uint32_t>(
        a.Number("ngpus", 1, MSCCL_MAX_RANKS, "the MSCCL executor reads at most " +
                                                   std::to_string(MSCCL_MAX_RANKS) + " <gpu>s"));
    algo.nchunksperloop = static_cast<uint32_t>(
        a.Number("nchunksperloop", 1, MSCCL_MAX_CHUNKS,
                 "the MSCCL executor names chunks 0.." + std::to_string(MSCCL_MAX_CHUNKS - 1) +
                     " of a buffer"));
    algo.nchannels = static_cast<uint32_t>(
        a.Number("nchannels", 0, MSCCL_MAX_CHANNELS,
                 "the MSCCL executor has " + std::to_string(MSCCL_MAX_CHANNELS) + " channels"));
    algo.inplace = a.Number("inplace", 0, 1) == 1;
    if (a.Has("outofplace") && (a.Number("outofplace", 0, 1) == 1) == algo.inplace)
    {
        a.Fail("inplace and outofplace disagree");
    }
    return ngpus;
}

/**
 * Reads one <tb> of a rank (not yet its steps) and checks it on its own.
 * \param source the file \param t the element \param rank the rank
 * \param count the rank's threadblocks \param algo the algorithm, its GPU being read
 * \param[in,out] tbElement per threadblock id of the rank, its element once read
 */
void
ReadThreadblock(const std::string& source,
                const tinyxml2::XMLElement& t,
                uint32_t rank,
                size_t count,
                MscclAlgorithm& algo,
                std::vector<const tinyxml2::XMLElement*>& tbElement)
{
    const uint32_t ngpus = algo.GetNRanks();
    const std::string rankName = "rank " + std::to_string(rank);
    const Attributes ta(source, t, rankName + ", <tb>", {"id", "send", "recv", "chan"});
    const auto tbId = static_cast<uint32_t>(
        ta.Number("id", 0, static_cast<int64_t>(count) - 1,
                  "the MSCCL executor needs a rank's threadblocks numbered from 0 without a gap"));
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
    tb.chan = static_cast<uint32_t>(ta.Number("chan", 0, MSCCL_MAX_CHANNELS - 1,
                                              "the MSCCL executor's channels"));
    if (tb.send == static_cast<int32_t>(rank) || tb.recv == static_cast<int32_t>(rank))
    {
        ta.Fail(name + " names its own rank as a peer");
    }
    if (tb.chan >= algo.nchannels)
    {
        ta.Fail(name + ": chan " + std::to_string(tb.chan) + " is not below nchannels (" +
                std::to_string(algo.nchannels) + ")");
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
    const std::string offsets = "the MSCCL executor names chunks 0.." +
                                std::to_string(MSCCL_MAX_CHUNKS - 1) + " of a buffer";
    gpu.iChunks = static_cast<uint32_t>(ga.Number("i_chunks", 0, MSCCL_MAX_CHUNKS, offsets));
    gpu.oChunks = static_cast<uint32_t>(ga.Number("o_chunks", 0, MSCCL_MAX_CHUNKS, offsets));
    gpu.sChunks = static_cast<uint32_t>(ga.Number("s_chunks", 0, MSCCL_MAX_CHUNKS, offsets));
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
    if (tbs.size() > MSCCL_MAX_THREADBLOCKS)
    {
        ga.Fail(rank + " has " + std::to_string(tbs.size()) + " threadblocks; the MSCCL executor "
                "runs at most " + std::to_string(MSCCL_MAX_THREADBLOCKS) + " on a rank "
                "(MSCCL_MAX_NUM_THREAD_BLOCKS)");
    }
    gpu.threadblocks.resize(tbs.size());
    std::vector<const tinyxml2::XMLElement*> tbElement(tbs.size(), nullptr);
    for (const tinyxml2::XMLElement* t : tbs)
    {
        ReadThreadblock(source, *t, id, tbs.size(), algo, tbElement);
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

namespace
{

/// Where an error is: "MSCCL algorithm 'f' line 12: rank 0, threadblock 3, step 2: ".
std::string
At(const std::string& prefix, uint32_t line, uint32_t rank, int64_t tb = -1, int64_t step = -1)
{
    return prefix + (line ? " line " + std::to_string(line) : std::string()) + ": rank " +
           std::to_string(rank) + (tb >= 0 ? ", threadblock " + std::to_string(tb) : "") +
           (step >= 0 ? ", step " + std::to_string(step) : "") + ": ";
}

/// Refuses sizes beyond the executor's: ranks, chunks, channels, threadblocks, steps and
/// elements of a rank, and threadblocks per channel.
void
CheckSizes(const MscclAlgorithm& algo, const std::string& prefix)
{
    const auto beyond = [&prefix](const std::string& what) {
        throw std::invalid_argument(prefix + ": " + what);
    };
    if (algo.GetNRanks() > MSCCL_MAX_RANKS || algo.nchunksperloop > MSCCL_MAX_CHUNKS ||
        algo.nchannels > MSCCL_MAX_CHANNELS)
    {
        beyond(std::to_string(algo.GetNRanks()) + " ranks, " + std::to_string(algo.nchunksperloop) +
               " chunks and " + std::to_string(algo.nchannels) + " channels; the MSCCL executor "
               "takes at most " + std::to_string(MSCCL_MAX_RANKS) + " ranks, " +
               std::to_string(MSCCL_MAX_CHUNKS) + " chunks and " +
               std::to_string(MSCCL_MAX_CHANNELS) + " channels");
    }
    for (uint32_t r = 0; r < algo.GetNRanks(); ++r)
    {
        const MscclGpu& gpu = algo.gpus[r];
        uint64_t elements = 1 + uint64_t{algo.GetNRanks()} + gpu.threadblocks.size();
        // per channel: threadblocks with a send peer, with a recv peer
        std::map<uint32_t, std::pair<uint32_t, uint32_t>> perChannel;
        for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
        {
            const MscclThreadblock& tb = gpu.threadblocks[t];
            elements += tb.steps.size();
            if (t >= MSCCL_MAX_THREADBLOCKS || tb.steps.size() > MSCCL_MAX_STEPS ||
                tb.chan >= algo.nchannels)
            {
                throw std::invalid_argument(
                    At(prefix, tb.line, r, t) + std::to_string(tb.steps.size()) + " steps on "
                    "channel " + std::to_string(tb.chan) + "; the MSCCL executor runs at most " +
                    std::to_string(MSCCL_MAX_THREADBLOCKS) + " threadblocks of " +
                    std::to_string(MSCCL_MAX_STEPS) + " steps (MSCCL_MAX_NUM_STEPS) on a rank, "
                    "on channels below nchannels (" + std::to_string(algo.nchannels) + ")");
            }
            auto& count = perChannel[tb.chan];
            for (const bool send : {true, false})
            {
                if ((send ? tb.send : tb.recv) >= 0 &&
                    ++(send ? count.first : count.second) > MSCCL_MAX_THREADBLOCKS_PER_CHANNEL)
                {
                    throw std::invalid_argument(
                        At(prefix, tb.line, r, t) + "it is the " +
                        std::to_string(MSCCL_MAX_THREADBLOCKS_PER_CHANNEL + 1) +
                        "th threadblock of the rank that " + (send ? "sends" : "receives") +
                        " on channel " + std::to_string(tb.chan) + "; the MSCCL executor takes "
                        "at most " + std::to_string(MSCCL_MAX_THREADBLOCKS_PER_CHANNEL) +
                        " per channel (MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL): put some on "
                        "another channel");
                }
            }
        }
        if (elements > MSCCL_MAX_ELEMENTS)
        {
            throw std::invalid_argument(
                At(prefix, gpu.line, r) + "the executor's XML reader would keep " +
                std::to_string(elements) + " elements for it (<algo>, " +
                std::to_string(algo.GetNRanks()) + " <gpu>s, its <tb>s and <step>s), more than "
                "its " + std::to_string(MSCCL_MAX_ELEMENTS) + " (MAX_NODES - 1): use fewer "
                "steps or threadblocks");
        }
    }
}

/**
 * Refuses a step the executor would read otherwise than the simulation: a cnt or depid beyond
 * its fields, a nop without a dependency (it would number the steps after it one lower), a nop
 * waited for (it never signals one), a step right after nops that does not wait itself (the
 * executor refuses it: "the last reduction must be a part of the first immediate instruction").
 */
void
CheckSteps(const MscclAlgorithm& algo, const std::string& prefix)
{
    for (uint32_t r = 0; r < algo.GetNRanks(); ++r)
    {
        const MscclGpu& gpu = algo.gpus[r];
        for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
        {
            const MscclThreadblock& tb = gpu.threadblocks[t];
            bool afterNop = false;
            for (uint32_t s = 0; s < tb.steps.size(); ++s)
            {
                const MscclStep& step = tb.steps[s];
                const auto fail = [&](const std::string& what) {
                    throw std::invalid_argument(At(prefix, step.line, r, t, s) + "'" +
                                                ToString(step.type) + "': " + what);
                };
                const bool nop = step.type == MscclStepType::NOP;
                if ((!nop && step.cnt > MSCCL_MAX_COUNT) || step.depid > MSCCL_MAX_DEPID)
                {
                    fail("cnt " + std::to_string(step.cnt) + ", depid " +
                         std::to_string(step.depid) + "; the MSCCL executor takes cnt 1.." +
                         std::to_string(MSCCL_MAX_COUNT) + " and depid -1.." +
                         std::to_string(MSCCL_MAX_DEPID) + " (8 bits)");
                }
                if (nop && step.depid < 0)
                {
                    fail("a nop that waits for nothing (depid=\"-1\"): the MSCCL executor "
                         "would number the steps after it one lower, so steps waiting for them "
                         "would wait for others; remove it");
                }
                if (nop && step.hasdep)
                {
                    fail("hasdep=\"1\" on a nop: the MSCCL executor never signals a nop, so a "
                         "step waiting for it would wait for a later step, or forever; make it "
                         "wait for the step after the nop");
                }
                if (!nop && afterNop && step.depid < 0)
                {
                    fail("it follows nop steps but waits for nothing itself (depid=\"-1\"); the "
                         "MSCCL executor refuses that (it hands the nops' waits to the step "
                         "after them, which must wait too): give it one of the nops' depid/deps");
                }
                afterNop = nop;
            }
        }
    }
}

/**
 * Refuses two threadblocks of rank r that send to one peer on one channel, or receive from one.
 * The MSCCL executor has one connection per channel, peer and direction, and each threadblock
 * keeps its own copy of that connection's step counter (see CheckMscclExecutorRules), so two
 * threadblocks on one would fill (or read) the same buffer slots whatever their dependencies.
 * A threadblock counts by its send and recv attributes, steps or not: the executor opens the
 * connection for it either way.
 */
void
CheckConnections(const MscclAlgorithm& algo, uint32_t r, const std::string& prefix)
{
    const MscclGpu& gpu = algo.gpus[r];
    // Per (receives?, peer, channel), the threadblock that uses it.
    std::map<std::tuple<bool, int32_t, uint32_t>, uint32_t> owner;
    for (uint32_t t = 0; t < gpu.threadblocks.size(); ++t)
    {
        const MscclThreadblock& tb = gpu.threadblocks[t];
        for (const bool receives : {false, true})
        {
            const int32_t peer = receives ? tb.recv : tb.send;
            if (peer < 0)
            {
                continue;
            }
            const auto [it, added] = owner.emplace(std::make_tuple(receives, peer, tb.chan), t);
            if (added)
            {
                continue;
            }
            const uint32_t lineA = gpu.threadblocks[it->second].line;
            throw std::invalid_argument(
                At(prefix, tb.line, r, t) + "it " + (receives ? "receives from" : "sends to") +
                " rank " + std::to_string(peer) + " on channel " + std::to_string(tb.chan) +
                ", as threadblock " + std::to_string(it->second) +
                (lineA ? " (line " + std::to_string(lineA) + ")" : "") + " does; the MSCCL "
                "executor has one connection per channel, peer and direction, and each "
                "threadblock keeps its own copy of its step counter (Azure/msccl-executor-nccl: "
                "src/device/msccl_kernel.cu, mscclRunInterpreter, builds one Primitives per "
                "threadblock; src/device/prims_simple.h, Primitives::loadSendConn and "
                "loadRecvConn copy conn->step), so the two would use the same buffer slots and "
                "their chunks would be mixed up, whatever their dependencies: give each peer and "
                "channel at most one threadblock that sends to it and one that receives from it "
                "(msccl-tools' threadblock assignment does), e.g. move threadblock " +
                std::to_string(t) + " and its peer's matching one to another channel");
        }
    }
}

} // namespace

void
CheckMscclExecutorRules(const MscclAlgorithm& algorithm, const std::string& prefix)
{
    CheckSizes(algorithm, prefix);
    CheckSteps(algorithm, prefix);
    for (uint32_t r = 0; r < algorithm.GetNRanks(); ++r)
    {
        CheckConnections(algorithm, r, prefix);
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
    CheckMscclExecutorRules(algo, "MSCCL algorithm '" + source + "'");
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
    // The executor (Azure/msccl-executor-nccl) requires these; 0 and 0: any size.
    printer.PushAttribute("outofplace", algorithm.inplace ? 0 : 1);
    printer.PushAttribute("minBytes", 0);
    printer.PushAttribute("maxBytes", 0);
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
