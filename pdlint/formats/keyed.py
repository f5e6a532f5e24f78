def launches(job, src, doc, docs):
    return []
