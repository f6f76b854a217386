/* xml_comments.c — comments as tinyxml2 reads them.
 *
 * libsdformat, urdfdom and MuJoCo parse with tinyxml2, which ends a comment
 * at the first "-->" and takes whatever comes before it. XML forbids "--"
 * inside a comment and a comment ending in "--->", and libxml2 refuses
 * both, while Gazebo's own worlds have them ("start with --levels").
 * Comments are never read, so before libxml2 sees a document, the hyphens
 * inside such a comment are blanked: the comment stays a comment, its line
 * breaks stay where they were, and nothing outside comments changes, so
 * whatever else libxml2 refuses (a DOCTYPE, a comment never closed, markup
 * that is not well formed) it still refuses. */
#include <string.h>

#include "formats/xml.h"

/* The first occurrence of the len bytes of what in [s, end), or NULL. */
static char *find(char *s, const char *end, const char *what, size_t len)
{
    for (; s + len <= end; s++)
        if (!memcmp(s, what, len))
            return s;
    return NULL;
}

/* Past the end of the markup that starts at s (at a '<' that opens no
 * comment), or NULL when it is never closed. A tag's quoted attribute
 * values may hold '>'; CDATA sections and processing instructions end at
 * their own closers. */
static char *skip_markup(char *s, const char *end)
{
    char *close;
    if ((size_t)(end - s) >= 9 && !memcmp(s, "<![CDATA[", 9))
        return (close = find(s + 9, end, "]]>", 3)) ? close + 3 : NULL;
    if ((size_t)(end - s) >= 2 && s[1] == '?')
        return (close = find(s + 2, end, "?>", 2)) ? close + 2 : NULL;
    char quote = 0;
    for (s++; s < end; s++) {
        if (quote)
            quote = *s == quote ? 0 : quote;
        else if (*s == '"' || *s == '\'')
            quote = *s;
        else if (*s == '>')
            return s + 1;
    }
    return NULL;
}

/* The body [s, end) of one comment: true when libxml2 would refuse it. */
static bool refused_body(const char *s, const char *end)
{
    if (end > s && end[-1] == '-')
        return true;
    for (; s + 1 < end; s++)
        if (s[0] == '-' && s[1] == '-')
            return true;
    return false;
}

bool wk__xml_blank_comment_hyphens(char *text, size_t len)
{
    const char *end = text + len;
    bool changed = false;
    for (char *s = memchr(text, '<', len); s; s = memchr(s, '<', (size_t)(end - s))) {
        if ((size_t)(end - s) < 4 || memcmp(s, "<!--", 4)) {
            if (!(s = skip_markup(s, end)))
                break;
            continue;
        }
        char *body = s + 4, *close = find(body, end, "-->", 3);
        if (!close)
            break; /* never closed: left for libxml2 to refuse */
        if (refused_body(body, close)) {
            for (char *c = body; c < close; c++)
                *c = *c == '-' ? ' ' : *c;
            changed = true;
        }
        s = close + 3;
    }
    return changed;
}
